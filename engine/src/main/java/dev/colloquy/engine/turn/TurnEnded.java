package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.TurnOutcome;

/**
 * What a turn supervisor reports to its session when the turn is over and must be journaled. The
 * terminal frame goes to the subscribers only once the session has persisted it.
 */
public sealed interface TurnEnded {

  String turnId();

  TurnOutcome outcome();

  record Completed(String turnId, String messageId, TurnOutcome outcome) implements TurnEnded {}

  record Failed(String turnId, String code, String message, TurnOutcome outcome) implements TurnEnded {}

  record Cancelled(String turnId, String reason, TurnOutcome outcome) implements TurnEnded {}
}
