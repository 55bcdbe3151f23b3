package dev.colloquy.engine.session;

import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnStatus;
import dev.colloquy.engine.domain.Usage;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a session amounts to over all its turns, kept as running totals so that the state need not
 * keep the turns themselves: how many were accepted (a turn's number is its place in that count)
 * and completed, tokens and cost per {@code provider/model} not yet billed, and when the session was
 * last active. Its size does not grow with the turns, only with the models used.
 *
 * <p>{@code inheritedCompleted}: of the completed turns, those billed elsewhere or before (a fork's
 * inherited ones, those of a stretch that ended when the session closed for idleness and reopened).
 * {@code billedFrom}: when the stretch being counted began, the reopening; null since the session opened.
 */
public record SessionTotals(int turns, int completedTurns, Map<String, Usage> usageByModel, Instant lastActivity,
    int inheritedCompleted, Instant billedFrom)
    implements CborSerializable {

  /** Totals without inherited turns. */
  public SessionTotals(int turns, int completedTurns, Map<String, Usage> usageByModel, Instant lastActivity) {
    this(turns, completedTurns, usageByModel, lastActivity, 0, null);
  }

  public SessionTotals {
    usageByModel = Map.copyOf(usageByModel);
  }

  /** The totals of a session not opened: one instance for all (an entity's initial state holds them). */
  private static final SessionTotals NONE = new SessionTotals(0, 0, Map.of(), null);

  static SessionTotals openedAt(Instant at) {
    return at == null ? NONE : new SessionTotals(0, 0, Map.of(), at);
  }

  /** The totals of a session whose every turn is given: what a snapshot from before the totals existed held. */
  static SessionTotals of(List<TurnRecord> turns, Instant createdAt) {
    SessionTotals totals = openedAt(createdAt);
    for (TurnRecord turn : turns) {
      totals = totals.accepted(turn.acceptedAt());
      if (!turn.pending()) {
        totals = totals.ended(turn.status(), turn.outcome(), turn.endedAt());
      }
    }
    return totals;
  }

  SessionTotals accepted(Instant at) {
    return new SessionTotals(turns + 1, completedTurns, usageByModel, latest(at), inheritedCompleted, billedFrom);
  }

  SessionTotals ended(TurnStatus status, TurnOutcome outcome, Instant at) {
    return new SessionTotals(turns, completedTurns + (status == TurnStatus.COMPLETED ? 1 : 0), plus(outcome),
        latest(at), inheritedCompleted, billedFrom);
  }

  /** An attempt of a turn cut short and run again: what it used counts, the turn is still running. */
  SessionTotals attempted(TurnOutcome cutShort, Instant at) {
    return new SessionTotals(turns, completedTurns, plus(cutShort), latest(at), inheritedCompleted, billedFrom);
  }

  /** A new stretch from {@code at}: every turn so far was billed when the session closed; none of its usage is left. */
  SessionTotals reopened(Instant at) {
    return new SessionTotals(turns, completedTurns, Map.of(), latest(at), completedTurns, at);
  }

  private Map<String, Usage> plus(TurnOutcome outcome) {
    Map<String, Usage> usage = new LinkedHashMap<>(usageByModel);
    if (outcome != null) {
      for (RunOutcome run : outcome.runs()) {
        usage.merge(run.provider() + "/" + run.model(), run.usage(), Usage::plus);
      }
      for (AgentCall call : outcome.agentCalls()) {
        usage.merge(call.provider() + "/" + call.model(), call.usage(), Usage::plus);
      }
    }
    return usage;
  }

  private Instant latest(Instant at) {
    return lastActivity == null || (at != null && at.isAfter(lastActivity)) ? at : lastActivity;
  }
}
