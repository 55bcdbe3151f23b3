package dev.colloquy.mockllm;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/** A counter that tests can wait on, so they never poll or sleep. */
final class AwaitableCounter {
  private final AtomicLong value = new AtomicLong();
  private final Queue<Waiter> waiters = new ConcurrentLinkedQueue<>();

  long get() {
    return value.get();
  }

  void add(long delta) {
    release(value.addAndGet(delta));
  }

  /** Completes with the counter's value once it is at least {@code target}. */
  CompletionStage<Long> whenAtLeast(long target) {
    Waiter waiter = new Waiter(target, new CompletableFuture<>());
    waiters.add(waiter);
    // The counter may have passed the target between the caller's read and the add above.
    release(value.get());
    return waiter.reached().minimalCompletionStage();
  }

  private void release(long now) {
    waiters.removeIf(waiter -> waiter.releaseAt(now));
  }

  private record Waiter(long target, CompletableFuture<Long> reached) {
    boolean releaseAt(long now) {
      if (now < target) {
        return false;
      }
      reached.complete(now);
      return true;
    }
  }
}
