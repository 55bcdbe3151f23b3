package dev.colloquy.engine.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.domain.TurnStatus;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The rules of a fork: a new session that starts with an existing one's turns before its turn
 * {@code atTurn} (1 for none), so that a developer can run that turn again another way and compare.
 * Only turns that have ended are inherited; the original is never touched.
 */
final class Forks {

  static final String INVALID_FORK_POINT = ErrorCode.INVALID_FORK_POINT.name();

  private Forks() {}

  /** What a fork of {@code state} at {@code atTurn} starts from, or why there is none. */
  static ChatSession.ForkAnswer source(ActorSystem<?> system, SessionState state, int atTurn) {
    if (!state.exists()) {
      return new ChatSession.Rejected(ChatSession.SESSION_NOT_FOUND, "Session not found", null);
    }
    List<TurnRecord> turns = state.turns();
    int ended = 0;
    while (ended < turns.size() && !turns.get(ended).pending()) {
      ended++;
    }
    int firstKept = turns.isEmpty() ? state.totals().turns() + 1 : turns.getFirst().ordinal();
    if (atTurn > 1 && firstKept > 1) {
      return new ChatSession.Rejected(INVALID_FORK_POINT, "This session keeps only its newest "
          + SessionState.TURNS_KEPT + " turns, from turn " + firstKept + " on: a fork of it can only be at_turn 1"
          + " (a fork inherits every turn before its fork point)", null);
    }
    if (atTurn < 1 || atTurn > ended + 1) {
      return new ChatSession.Rejected(INVALID_FORK_POINT, "at_turn must be a whole number from 1 to " + (ended + 1)
          + ": the fork keeps the turns before it (this session has " + ended + " that have ended)", null);
    }
    List<TurnRecord> inherited = turns.subList(0, atTurn - 1);
    ChatSession.SessionOpened opened = new ChatSession.SessionOpened(state.sessionId(), state.tenantId(),
        state.userId(), state.persona(), state.metadata(), state.createdAt(), state.characterId(), state.context());
    ChatSession.SessionForked forked = new ChatSession.SessionForked(state.sessionId(), atTurn, state.title(),
        inherited, narrativeAfter(state, inherited), Instant.now());
    // Turn atTurn by its number: a long session's kept turns start later than its first.
    String atTurnMessage = turns.stream().filter(turn -> turn.ordinal() == atTurn).findFirst()
        .map(TurnRecord::message).orElse(null);
    return new ChatSession.ForkSource(state.sessionId(), atTurn, inherited.size(), atTurnMessage,
        OpeningEvents.of(system, List.of(opened, forked)));
  }

  /** The narrative state as it was once {@code inherited} had ended: what their completions merged, in order. */
  private static JsonNode narrativeAfter(SessionState state, List<TurnRecord> inherited) {
    JsonNode narrative = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i < inherited.size(); i++) {
      TurnRecord turn = inherited.get(i);
      if (turn.status() == TurnStatus.COMPLETED) {
        SessionState then = new SessionState(state.sessionId(), state.status(), state.tenantId(), state.userId(),
            state.persona(), state.metadata(), state.title(), state.createdAt(), turn.endedAt(),
            inherited.subList(0, i + 1), narrative, null, null, state.characterId(), 0, null, state.context(),
            null, state.rollingSummary());
        narrative = JsonMergePatch.apply(narrative, then.narrativeDeltaAfter(turn.outcome()));
      }
    }
    return narrative;
  }
}
