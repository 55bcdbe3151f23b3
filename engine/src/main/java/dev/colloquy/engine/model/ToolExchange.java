package dev.colloquy.engine.model;

import java.util.List;

/**
 * One round of the tool-calling protocol, as the next call sends it back: the assistant's message
 * (the text it wrote before asking, and its calls) and one result per call.
 */
public record ToolExchange(String text, List<ToolCall> calls, List<Result> results) {

  /** What a call answered, for the {@code tool} message that names the call. */
  public record Result(String callId, String content) {}

  public ToolExchange {
    text = text == null ? "" : text;
    calls = List.copyOf(calls);
    results = List.copyOf(results);
  }
}
