package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.RollingSummary;
import dev.colloquy.engine.model.ChatMessage;
import java.util.List;

/**
 * What a turn knows of its session before its history window: the rolling summary so far (null when
 * none was made) and the messages after it that the window leaves out, which the next summary must take in.
 */
public record EarlierHistory(RollingSummary summary, List<ChatMessage> unsummarized) {

  public static final EarlierHistory NONE = new EarlierHistory(null, List.of());

  public EarlierHistory {
    unsummarized = List.copyOf(unsummarized);
  }

  /** How many messages of the conversation the summary covers; 0 without one. */
  public int coveredMessages() {
    return summary == null ? 0 : summary.coveredMessages();
  }
}
