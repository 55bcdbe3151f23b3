package dev.colloquy.engine.model.openai;

import dev.colloquy.engine.Timeouts;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

/**
 * How long one model call may go without hearing from its endpoint (from the call's start to its
 * answer's first bytes, and between any two reads of the answer after that), and how long it may take
 * in all. The quiet deadline is pushed back by each read ({@link #reading}: one clock read and one
 * volatile write); both are looked at only when one falls due, on the engine's timer thread
 * ({@link Timeouts}); a deadline found passed runs the call's {@code expired} action once, on that thread.
 *
 * <p>Why not the HTTP client's read timeout: a read timeout is a socket timeout, and a virtual thread
 * blocked in a timed socket read parks with a timeout. The JDK schedules a wake-up for every such
 * park on its virtual-thread scheduler's delay queue and cancels it when the data comes, waking that
 * queue's thread both times, and Okio enters and leaves its watchdog (one global lock) around every
 * read. That was several thread wake-ups per streamed token; here it is one timer task per call,
 * which rarely runs before the call ends and is then cancelled.
 *
 * <p>Why not the HTTP client's call timeout for the whole limit: OkHttp keeps every call's timeout in
 * one more queue behind one more lock (Okio's watchdog), which each call enters as it starts and leaves
 * as it ends; the one timer task here keeps both limits.
 */
final class ReadDeadline {

  private final long timeoutNanos;
  private final long callEnds;
  private final Runnable expired;
  private volatile long lastRead;
  /** The check now scheduled; null once the deadline has ended or expired. Guarded by {@code this}. */
  private ScheduledFuture<?> check;

  private ReadDeadline(Duration timeout, Duration callLimit, Runnable expired) {
    this.timeoutNanos = timeout.toNanos();
    this.expired = expired;
    this.lastRead = System.nanoTime();
    this.callEnds = lastRead + callLimit.toNanos();
  }

  /**
   * A deadline {@code timeout} from now, pushed back by each read but never past {@code callLimit} from
   * now; {@code expired} runs once if it passes before {@link #end}.
   */
  static ReadDeadline start(Duration timeout, Duration callLimit, Runnable expired) {
    ReadDeadline deadline = new ReadDeadline(timeout, callLimit, expired);
    // Held until the check is recorded: one that fell due first would find none and never expire.
    synchronized (deadline) {
      deadline.check = Timeouts.after(Duration.ofNanos(deadline.nanosLeft(deadline.lastRead)), deadline::check);
    }
    return deadline;
  }

  /** The call is about to wait for its endpoint: the deadline is {@code timeout} from now. */
  void reading() {
    lastRead = System.nanoTime();
  }

  /** The call no longer waits for its endpoint; the deadline can no longer expire. */
  synchronized void end() {
    if (check != null) {
      check.cancel(false);
      check = null;
    }
  }

  /**
   * Due: expired when nothing was read for the whole timeout or the call's limit is reached, else
   * checked again when it may be.
   */
  private void check() {
    synchronized (this) {
      if (check == null) {
        return;
      }
      long left = nanosLeft(System.nanoTime());
      if (left > 0) {
        check = Timeouts.after(Duration.ofNanos(left), this::check);
        return;
      }
      check = null;
    }
    expired.run();
  }

  /** How long from {@code now} until the first of the two limits passes (none left: zero or less). */
  private long nanosLeft(long now) {
    return Math.min(lastRead + timeoutNanos, callEnds) - now;
  }
}
