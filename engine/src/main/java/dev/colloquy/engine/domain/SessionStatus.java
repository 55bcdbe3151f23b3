package dev.colloquy.engine.domain;

/**
 * A session that was never opened is NEW; DELETED sessions answer as if they never existed. An
 * ESCALATED session is open but in the hands of a human until an operator hands it back.
 */
public enum SessionStatus {
  NEW,
  OPEN,
  ESCALATED,
  CLOSED,
  DELETED
}
