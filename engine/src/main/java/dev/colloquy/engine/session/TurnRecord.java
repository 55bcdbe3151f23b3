package dev.colloquy.engine.session;

import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.TurnAttempt;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnProgress;
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
    TurnProgress progress,
    List<TurnAttempt> attempts,
    int ordinal)
    implements CborSerializable {

  /**
   * {@code progress} is what the running turn's checkpoints journaled (null once it ended, and for
   * turns journaled before checkpoints); {@code attempts} are the attempts lost nodes cut short before
   * the one that {@code runs} and {@code outcome} describe (none in snapshots taken before restarts).
   */
  public TurnRecord {
    runs = List.copyOf(runs);
    attempts = attempts == null ? List.of() : List.copyOf(attempts);
  }

  /**
   * Whether a repeated request (the same idempotency key or turn id) asks for this very turn: the
   * same message, and the same models when it names any.
   */
  public boolean asks(String otherMessage, List<String> models) {
    return java.util.Objects.equals(message, otherMessage)
        && (models.isEmpty() || runs.stream().map(RunSpec::model).toList().equals(models));
  }

  static TurnRecord accepted(
      String turnId, String idempotencyKey, String traceId, String userMessageId, String message,
      List<RunSpec> runs, Instant at, int ordinal) {
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, message, runs, at,
        TurnStatus.PENDING, null, null, null, null, null, null, List.of(), ordinal);
  }

  /** This turn numbered {@code number}: for turns of a snapshot taken before turns had numbers. */
  TurnRecord numbered(int number) {
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, message, runs, acceptedAt, status, endedAt,
        assistantMessageId, endCode, endMessage, outcome, progress, attempts, number);
  }

  /** A checkpoint of the running attempt was journaled. */
  TurnRecord checkpointed(TurnProgress.Checkpoint checkpoint) {
    TurnProgress now = progress == null ? TurnProgress.opening(0) : progress;
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, message, runs, acceptedAt, status,
        endedAt, assistantMessageId, endCode, endMessage, outcome, now.plus(checkpoint), attempts, ordinal);
  }

  /** Another node runs the turn again with {@code newRuns}; the attempt cut short is kept for replay. */
  TurnRecord restarted(TurnAttempt cutShort, List<RunSpec> newRuns) {
    List<TurnAttempt> all = new java.util.ArrayList<>(attempts);
    all.add(cutShort);
    return new TurnRecord(turnId, idempotencyKey, traceId, userMessageId, message, newRuns, acceptedAt, status,
        endedAt, assistantMessageId, endCode, endMessage, outcome, null, all, ordinal);
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
        ending.status(), at, assistantMessageId, code, endMessage, outcome, null, attempts, ordinal);
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
