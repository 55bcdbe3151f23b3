package dev.colloquy.engine.domain;

/**
 * How a turn ended. The one model of it: the supervisor reports it to its session, the journal
 * records it (see {@code ChatSession.TurnEnded}), a turn record keeps it, and it is the terminal
 * event of the turn's stream. A turn interrupted (its node shut down or crashed, or its outcome could
 * not be journaled) fails with {@link #INTERRUPTED}, which is what a client resuming it sees.
 */
public sealed interface TurnEnding extends StreamEvent {

  String INTERRUPTED = "INTERRUPTED";

  TurnStatus status();

  @Override
  default boolean terminal() {
    return true;
  }

  /** The answer is the first completed run's text; {@code usage} covers every run. */
  record Completed(String messageId, String text, long latencyMs, Usage usage) implements TurnEnding {

    public static Completed of(String messageId, TurnOutcome outcome) {
      return new Completed(messageId, outcome.text(), outcome.latencyMs(), outcome.usage());
    }

    @Override
    public TurnStatus status() {
      return TurnStatus.COMPLETED;
    }
  }

  record Failed(String code, String message) implements TurnEnding {

    public static Failed interrupted(String message) {
      return new Failed(INTERRUPTED, message);
    }

    public boolean interrupted() {
      return INTERRUPTED.equals(code);
    }

    @Override
    public TurnStatus status() {
      return TurnStatus.FAILED;
    }
  }

  record Cancelled(String reason) implements TurnEnding {

    @Override
    public TurnStatus status() {
      return TurnStatus.CANCELLED;
    }
  }
}
