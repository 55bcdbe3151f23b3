package dev.colloquy.engine.domain;

/** Where a turn is in its life. PENDING covers both the running turn and those queued behind it. */
public enum TurnStatus {
  PENDING,
  COMPLETED,
  FAILED,
  CANCELLED
}
