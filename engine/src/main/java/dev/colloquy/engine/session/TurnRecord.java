package dev.colloquy.engine.session;

import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnStatus;
import java.time.Instant;
import java.util.List;

/**
 * One turn as the journal knows it: accepted with its message and runs, then ended once with its
 * outcome. The end fields are null while the turn is pending. {@code ordinal} is its number in the
 * session, from 1: the read side numbers a session's messages by it too.
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
    TurnOutcome outcome,
    int ordinal)
    implements CborSerializable {

  public TurnRecord {
    runs = List.copyOf(runs);
  }

  static TurnRecord accepted(
      String turnId, String idempotencyKey, String traceId, String userMessageId, String message,
      List<RunSpec> runs, Instant at, int ordinal) {
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, message, runs, at,
        TurnStatus.PENDING, null, null, null, null, null, ordinal);
  }

  /** This turn numbered {@code number}: for turns of a snapshot taken before turns had numbers. */
  TurnRecord numbered(int number) {
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, message, runs, acceptedAt, status, endedAt,
        assistantMessageId, endCode, endMessage, outcome, number);
  }

  /** The turn ended: its ending is kept in the fields a snapshot has always had. */
  TurnRecord ended(TurnEnding ending, TurnOutcome outcome, Instant at) {
    return switch (ending) {
      case TurnEnding.Completed completed -> ended(ending, at, completed.messageId(), null, null, outcome);
      case TurnEnding.Failed failed -> ended(ending, at, null, failed.code(), failed.message(), outcome);
      case TurnEnding.Cancelled cancelled -> ended(ending, at, null, null, cancelled.reason(), outcome);
    };
  }

  private TurnRecord ended(TurnEnding ending, Instant at, String assistantMessageId, String code, String endMessage,
      TurnOutcome outcome) {
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, message, runs, acceptedAt,
        ending.status(), at, assistantMessageId, code, endMessage, outcome, ordinal);
  }

  /** How the turn ended; it must have ended. */
  public TurnEnding ending() {
    return switch (status) {
      case COMPLETED -> TurnEnding.Completed.of(assistantMessageId, outcome);
      case FAILED -> new TurnEnding.Failed(endCode, endMessage);
      case CANCELLED -> new TurnEnding.Cancelled(endMessage);
      case PENDING -> throw new IllegalStateException("turn " + turnId + " has not ended");
    };
  }

  public boolean pending() {
    return status == TurnStatus.PENDING;
  }
}
