package dev.colloquy.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.ImportedJournal;
import dev.colloquy.persistence.JournalEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's journal as JSON Lines, the export format: one event a line, each
 * {@code {"sequence_nr", "written_at", "type", "event"}} as in {@code GET /v1/sessions/{id}/journal},
 * numbered 1, 2, 3 … without a gap. Reading one back checks every line and the whole, and refuses
 * the first fault in one line that names it.
 */
public final class JournalLines {

  private JournalLines() {}

  /** The line of one journal entry, without its line break. */
  public static String line(JournalEntry entry) {
    try {
      return Json.MAPPER.writeValueAsString(new JournalJson.Entry(entry.sequenceNr(), entry.writtenAt().toString(),
          entry.event().getClass().getSimpleName(), Json.MAPPER.valueToTree(entry.event())));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("A journaled event could not be written as JSON", e);
    }
  }

  /** The lines of a JSON Lines text, blank lines left out. */
  public static List<JsonNode> parse(String text) {
    List<JsonNode> lines = new ArrayList<>();
    String[] raw = text.split("\r?\n", -1);
    for (int i = 0; i < raw.length; i++) {
      if (raw[i].isBlank()) {
        continue;
      }
      try {
        lines.add(Json.MAPPER.readTree(raw[i]));
      } catch (JsonProcessingException e) {
        throw invalid("line " + (i + 1) + " is not JSON: " + e.getOriginalMessage());
      }
    }
    return lines;
  }

  /**
   * The events of an export's lines, in order, once every line is an event numbered one more than the
   * line before (from 1) and the whole is one session's history ({@link ImportedJournal}).
   */
  public static List<ChatSession.Event> events(List<JsonNode> lines) {
    List<ChatSession.Event> events = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      JsonNode line = lines.get(i);
      String at = "line " + (i + 1);
      if (!line.isObject() || !line.path("event").isObject()) {
        throw invalid(at + " is not a journal entry {\"sequence_nr\", \"written_at\", \"type\", \"event\"}");
      }
      if (!line.path("sequence_nr").isIntegralNumber() || line.path("sequence_nr").asLong() != i + 1) {
        throw invalid(at + " has sequence_nr " + line.path("sequence_nr") + " where " + (i + 1)
            + " belongs: a journal is numbered from 1 without a gap");
      }
      try {
        events.add(Json.MAPPER.treeToValue(line.path("event"), ChatSession.Event.class));
      } catch (JsonProcessingException | IllegalArgumentException e) {
        throw invalid(at + " holds no event Colloquy knows: " + firstLine(e.getMessage()));
      }
    }
    ImportedJournal.problem(events).ifPresent(problem -> {
      throw invalid(problem);
    });
    return events;
  }

  private static String firstLine(String message) {
    String first = message == null ? "unreadable" : message.lines().findFirst().orElse("unreadable");
    return first.length() > 200 ? first.substring(0, 200) + "…" : first;
  }

  private static ApiException invalid(String problem) {
    return new ApiException(ErrorCode.INVALID_JOURNAL, "The journal cannot be imported: " + problem);
  }
}
