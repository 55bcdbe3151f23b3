package dev.colloquy.engine.turn;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.model.ChatMessage;
import java.util.List;

/**
 * What a turn needs to run: who asks, what, in which conversation, and which models answer; and for
 * the agent, whose session it is ({@code userId}, null for a tenant-wide one), how many turns it
 * completed before this one, and whether a human has it ({@code handoff}: the message is only forwarded).
 * {@code narrativeState} is the story state a Writing Room chat has kept so far, which the model reads
 * beside the history; null for other sessions.
 */
public record TurnPlan(
    String sessionId,
    String tenantId,
    String turnId,
    String traceId,
    String message,
    String persona,
    List<ChatMessage> history,
    List<RunSpec> runs,
    String userId,
    int priorTurns,
    boolean handoff,
    JsonNode narrativeState) {

  public TurnPlan {
    history = List.copyOf(history);
    runs = List.copyOf(runs);
  }

  /** A turn of a tenant-wide session that no human has. */
  public TurnPlan(String sessionId, String tenantId, String turnId, String traceId, String message, String persona,
      List<ChatMessage> history, List<RunSpec> runs) {
    this(sessionId, tenantId, turnId, traceId, message, persona, history, runs, null, history.size() / 2, false, null);
  }
}
