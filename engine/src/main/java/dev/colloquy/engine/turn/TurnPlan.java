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
 * beside the history; null for other sessions. {@code earlier} is what came before the history window:
 * the rolling summary and the messages it has not taken in yet.
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
    JsonNode narrativeState,
    EarlierHistory earlier) {

  public TurnPlan {
    history = List.copyOf(history);
    runs = List.copyOf(runs);
    earlier = earlier == null ? EarlierHistory.NONE : earlier;
  }

  /** A plan whose session has nothing before its history window. */
  public TurnPlan(String sessionId, String tenantId, String turnId, String traceId, String message, String persona,
      List<ChatMessage> history, List<RunSpec> runs, String userId, int priorTurns, boolean handoff,
      JsonNode narrativeState) {
    this(sessionId, tenantId, turnId, traceId, message, persona, history, runs, userId, priorTurns, handoff,
        narrativeState, EarlierHistory.NONE);
  }

  /** This plan with the message the agent works with instead (the language middleware's translation). */
  public TurnPlan withMessage(String agentMessage) {
    return new TurnPlan(sessionId, tenantId, turnId, traceId, agentMessage, persona, history, runs, userId, priorTurns,
        handoff, narrativeState, earlier);
  }

  /** A turn of a tenant-wide session that no human has. */
  public TurnPlan(String sessionId, String tenantId, String turnId, String traceId, String message, String persona,
      List<ChatMessage> history, List<RunSpec> runs) {
    this(sessionId, tenantId, turnId, traceId, message, persona, history, runs, null, history.size() / 2, false, null);
  }
}
