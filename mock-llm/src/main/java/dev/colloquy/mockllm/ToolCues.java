package dev.colloquy.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tool calls scripted by the conversation, so tests can drive a tool-calling loop. When a request
 * offers {@code tools} and its last user message holds cues {@code mock-tool:NAME} (optionally
 * followed directly by a flat JSON object of arguments, e.g. {@code
 * mock-tool:knowledge_retrieval{"query":"refunds"}}), the mock answers with one tool call per cue
 * (finish reason {@code tool_calls}) as long as no {@code tool} message follows that user message;
 * once one does, it answers normally. A cue {@code mock-tool-always:NAME} asks for its call in every
 * answer that offers tools, which never ends a loop by itself. Requests without tools are answered
 * normally whatever their messages say.
 */
final class ToolCues {

  private static final Pattern CUE = Pattern.compile("mock-tool(-always)?:([A-Za-z0-9_-]+)(\\{[^{}]*})?");

  /** One scripted call: the tool and its arguments' JSON text. */
  record Call(String name, String arguments) {}

  private ToolCues() {}

  /** The calls the answer to this request makes; none for a normal answer. */
  static List<Call> of(JsonNode root) {
    JsonNode tools = root.path("tools");
    JsonNode messages = root.path("messages");
    if (!tools.isArray() || tools.isEmpty() || !messages.isArray()) {
      return List.of();
    }
    int lastUser = -1;
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).path("role").asText().equals("user")) {
        lastUser = i;
      }
    }
    if (lastUser < 0) {
      return List.of();
    }
    boolean answered = false;
    for (int i = lastUser + 1; i < messages.size(); i++) {
      answered |= messages.get(i).path("role").asText().equals("tool");
    }
    List<Call> calls = new ArrayList<>();
    Matcher cue = CUE.matcher(messages.get(lastUser).path("content").asText(""));
    while (cue.find()) {
      if (!answered || cue.group(1) != null) {
        calls.add(new Call(cue.group(2), cue.group(3) == null ? "{}" : cue.group(3)));
      }
    }
    return calls;
  }
}
