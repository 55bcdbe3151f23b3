package dev.colloquy.engine.model;

import dev.colloquy.engine.knowledge.Passage;
import java.util.List;

/**
 * What one model run is asked. The passages are also woven into the messages as context; they are
 * kept apart too so that the offline responder can quote them without parsing a prompt.
 * {@code maxTokens} caps the answer: every call sends it, so no call runs up an unbounded bill.
 */
public record ChatRequest(String model, List<ChatMessage> messages, List<Passage> passages, int maxTokens) {

  public ChatRequest {
    messages = List.copyOf(messages);
    passages = List.copyOf(passages);
    if (maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens must be positive, was " + maxTokens);
    }
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
