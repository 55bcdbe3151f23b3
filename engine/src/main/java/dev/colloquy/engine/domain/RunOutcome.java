package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/**
 * How one model run ended. A failed or cancelled run keeps the text it had produced, so that a
 * replay of the turn shows what the user saw.
 */
public record RunOutcome(
    String runId,
    String provider,
    String model,
    Status status,
    String text,
    Usage usage,
    long latencyMs,
    String errorCode,
    String errorMessage)
    implements CborSerializable {

  public enum Status {
    COMPLETED,
    FAILED,
    CANCELLED
  }

  public boolean completed() {
    return status == Status.COMPLETED;
  }
}
