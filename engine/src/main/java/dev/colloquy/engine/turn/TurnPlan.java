package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.model.ChatMessage;
import java.util.List;

/** What a turn needs to run: who asks, what, in which conversation, and which models answer. */
public record TurnPlan(
    String sessionId,
    String tenantId,
    String turnId,
    String traceId,
    String message,
    String persona,
    List<ChatMessage> history,
    List<RunSpec> runs) {

  public TurnPlan {
    history = List.copyOf(history);
    runs = List.copyOf(runs);
  }
}
