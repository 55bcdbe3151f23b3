package dev.colloquy.engine.session;

import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnStatus;
import java.time.Instant;
import java.util.List;

/**
 * One turn as the journal knows it: accepted with its message and runs, then ended once with its
 * outcome. The end fields are null while the turn is pending.
 */
public record TurnRecord(
    String turnId,
    String idempotencyKey,
    String traceId,
    String userMessageId,
    String message,
    List<RunSpec> runs,
    Instant acceptedAt,
    TurnStatus status,
    Instant endedAt,
    String assistantMessageId,
    String endCode,
    String endMessage,
    TurnOutcome outcome)
    implements CborSerializable {

  public TurnRecord {
    runs = List.copyOf(runs);
  }

  static TurnRecord accepted(
      String turnId, String idempotencyKey, String traceId, String userMessageId, String message,
      List<RunSpec> runs, Instant at) {
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, message, runs, at,
        TurnStatus.PENDING, null, null, null, null, null);
  }

  TurnRecord ended(TurnStatus status, Instant at, String assistantMessageId, String code, String message, TurnOutcome outcome) {
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, this.message, runs, acceptedAt,
        status, at, assistantMessageId, code, message, outcome);
  }

  public boolean pending() {
    return status == TurnStatus.PENDING;
  }
}
