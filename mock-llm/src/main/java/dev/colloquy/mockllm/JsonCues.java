package dev.colloquy.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Structured answers scripted by the conversation, so tests can drive a structured-output call: when
 * a request asks for a {@code json_schema} response format and its last user message holds a cue
 * {@code mock-json:TEXT}, the answer is TEXT verbatim (up to the end of its line), streamed in small
 * pieces. TEXT need not be valid JSON, so a test can script a malformed answer. Without the cue, or
 * without the response format, the answer is the usual one.
 */
final class JsonCues {

  private static final Pattern CUE = Pattern.compile("mock-json:([^\\r\\n]*)");
  /** Characters per streamed piece: small enough that a client must join pieces to read the object. */
  private static final int PIECE = 16;

  private JsonCues() {}

  static Optional<String> of(JsonNode root) {
    if (!root.path("response_format").path("type").asText("").equals("json_schema")) {
      return Optional.empty();
    }
    JsonNode messages = root.path("messages");
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i).path("role").asText().equals("user")) {
        Matcher cue = CUE.matcher(messages.get(i).path("content").asText(""));
        return cue.find() ? Optional.of(cue.group(1).strip()) : Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** The answer cut into the pieces it is streamed in. */
  static List<String> pieces(String text) {
    List<String> pieces = new ArrayList<>();
    for (int start = 0; start < text.length(); start += PIECE) {
      pieces.add(text.substring(start, Math.min(text.length(), start + PIECE)));
    }
    return pieces.isEmpty() ? List.of("") : pieces;
  }
}
