package dev.colloquy.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The timeouts and delayed actions of the engine's work outside its actors (actors use their own
 * timers), all on one timer thread.
 *
 * <p>Why not {@code CompletableFuture.orTimeout}, {@code completeOnTimeout} or {@code delayedExecutor}:
 * on JDK 25 they go to the common pool's delay scheduler, which wakes its thread for every timeout
 * armed and again for every one cancelled, and runs a delayed action on a common-pool thread it wakes
 * too. A turn arms several (its language step, its retrieval, its admission place), so that was
 * several thread wake-ups a turn. This timer's queue wakes its thread only when a new timeout falls due
 * before every other, and drops a cancelled one without waking it.
 *
 * <p>What runs when a timeout passes runs on the timer's thread: it must be short and never block.
 */
public final class Timeouts {

  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private Timeouts() {}

  /**
   * {@code future}, completed with a {@link TimeoutException} if it has not completed within
   * {@code timeout}; as {@code orTimeout} does.
   */
  public static <T> CompletableFuture<T> within(CompletableFuture<T> future, Duration timeout) {
    return onTimeout(future, timeout, () -> future.completeExceptionally(new TimeoutException()));
  }

  /** {@code future}, completed with {@code value} if it has not completed within {@code timeout}; as {@code completeOnTimeout} does. */
  public static <T> CompletableFuture<T> orAfter(CompletableFuture<T> future, T value, Duration timeout) {
    return onTimeout(future, timeout, () -> future.complete(value));
  }

  /** Runs {@code action} on the timer's thread after {@code delay}, unless cancelled first. */
  public static ScheduledFuture<?> after(Duration delay, Runnable action) {
    return TIMER.schedule(action, delay.toNanos(), TimeUnit.NANOSECONDS);
  }

  private static <T> CompletableFuture<T> onTimeout(CompletableFuture<T> future, Duration timeout, Runnable expire) {
    if (!future.isDone()) {
      ScheduledFuture<?> expiry = after(timeout, expire);
      future.whenComplete((value, failure) -> expiry.cancel(false));
    }
    return future;
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("colloquy-timeouts").factory());
    // Most timeouts are cancelled long before they fall due: the queue drops each one at once.
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }
}
