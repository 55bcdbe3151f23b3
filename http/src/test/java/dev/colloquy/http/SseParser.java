package dev.colloquy.http;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses an event stream the way the HTML standard's EventSource does: lines end with CR, LF or
 * CRLF; a blank line dispatches; a line starting with ':' is a comment. Kept deliberately literal so
 * that a frame that would fool a browser fools this parser too.
 */
final class SseParser {

  final List<SseEvent> events = new ArrayList<>();
  final List<String> comments = new ArrayList<>();
  private String name = "message";
  private String id;
  private StringBuilder data = new StringBuilder();
  private boolean hasData;

  static SseParser parse(String stream) {
    SseParser parser = new SseParser();
    for (String line : stream.split("\r\n|\r|\n", -1)) {
      parser.line(line);
    }
    return parser;
  }

  void line(String line) {
    if (line.isEmpty()) {
      if (hasData) {
        events.add(new SseEvent(name, id, data.toString()));
      }
      name = "message";
      data = new StringBuilder();
      hasData = false;
      return;
    }
    if (line.startsWith(":")) {
      comments.add(line.substring(1).strip());
      return;
    }
    int colon = line.indexOf(':');
    String field = colon < 0 ? line : line.substring(0, colon);
    String value = colon < 0 ? "" : line.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    switch (field) {
      case "event" -> name = value;
      case "id" -> id = value;
      case "data" -> {
        if (hasData) {
          data.append('\n');
        }
        data.append(value);
        hasData = true;
      }
      default -> { }
    }
  }
}
