package dev.colloquy.engine.model;

import dev.colloquy.engine.knowledge.Passage;
import java.util.ArrayList;
import java.util.List;

/**
 * What one model run is asked. The passages are also woven into the messages as context; they are
 * kept apart too so that the offline responder can quote them without parsing a prompt.
 * {@code maxTokens} caps the answer: every call sends it, so no call runs up an unbounded bill.
 * {@code tools} are those the model may call in this call (none: it answers in text); {@code
 * exchanges} are the rounds of tool calls and results so far, sent after the messages; {@code
 * responseSchema}, when set, asks for an answer that is one JSON object of that schema (structured
 * output), null for text.
 */
public record ChatRequest(String model, List<ChatMessage> messages, List<Passage> passages, int maxTokens,
    List<ToolSpec> tools, List<ToolExchange> exchanges, ResponseSchema responseSchema) {

  public ChatRequest {
    messages = List.copyOf(messages);
    passages = List.copyOf(passages);
    tools = List.copyOf(tools);
    exchanges = List.copyOf(exchanges);
    if (maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens must be positive, was " + maxTokens);
    }
  }

  /** A request for a text answer. */
  public ChatRequest(String model, List<ChatMessage> messages, List<Passage> passages, int maxTokens,
      List<ToolSpec> tools, List<ToolExchange> exchanges) {
    this(model, messages, passages, maxTokens, tools, exchanges, null);
  }

  /** A request without tools. */
  public ChatRequest(String model, List<ChatMessage> messages, List<Passage> passages, int maxTokens) {
    this(model, messages, passages, maxTokens, List.of(), List.of());
  }

  /** The next call of a tool loop: this request with one more round of calls and results, offering {@code next}. */
  public ChatRequest after(ToolExchange exchange, List<ToolSpec> next) {
    List<ToolExchange> rounds = new ArrayList<>(exchanges);
    rounds.add(exchange);
    return new ChatRequest(model, messages, passages, maxTokens, next, rounds, responseSchema);
  }

  /** The last user message: the question of this turn. */
  public String question() {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i).role() == ChatMessage.Role.USER) {
        return messages.get(i).content();
      }
    }
    return "";
  }
}
