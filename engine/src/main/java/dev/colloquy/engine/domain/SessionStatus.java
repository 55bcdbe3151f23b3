package dev.colloquy.engine.domain;

/** A session that was never opened is NEW; DELETED sessions answer as if they never existed. */
public enum SessionStatus {
  NEW,
  OPEN,
  CLOSED,
  DELETED
}
