package dev.colloquy.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Work in flight on this node: the turns it runs, the response streams it writes. A node that is
 * shutting down uses it to refuse new work, to wait for what runs, and to interrupt what outlives
 * the wait. Node-local: one per kind of work in a running application, never sent.
 */
public final class InFlight {

  /** Each piece of work with how to interrupt it. */
  private final Map<Object, Runnable> running = new LinkedHashMap<>();
  private final List<CompletableFuture<Void>> noneRunning = new ArrayList<>();
  private volatile boolean draining;

  /** {@code work} runs until {@link #ended}; a drain that outlasts its deadline runs {@code interrupt}. */
  public synchronized void started(Object work, Runnable interrupt) {
    running.put(work, interrupt);
  }

  /** Work that ends by itself and cannot be interrupted. */
  public void started(Object work) {
    started(work, () -> {});
  }

  public synchronized void ended(Object work) {
    running.remove(work);
    if (running.isEmpty()) {
      List<CompletableFuture<Void>> waiters = List.copyOf(noneRunning);
      noneRunning.clear();
      waiters.forEach(waiter -> waiter.complete(null));
    }
  }

  public synchronized int count() {
    return running.size();
  }

  /** True once the node has begun to shut down: no new work is to start here. */
  public boolean draining() {
    return draining;
  }

  /**
   * Refuses new work from now on, gives what runs {@code deadline} to end, then interrupts what is
   * left and gives it {@code interruptAllowance} to record that. Completes with how many pieces of
   * work were interrupted.
   */
  public CompletionStage<Integer> drain(Duration deadline, Duration interruptAllowance) {
    draining = true;
    return whenNoneRunning(deadline).thenCompose(drained -> {
      int interrupted = interruptAll();
      return interrupted == 0
          ? CompletableFuture.completedFuture(0)
          : whenNoneRunning(interruptAllowance).thenApply(ended -> interrupted);
    });
  }

  /** Completes when nothing runs here, or after {@code timeout} whatever still runs. */
  public synchronized CompletionStage<Void> whenNoneRunning(Duration timeout) {
    if (running.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> waiter = new CompletableFuture<>();
    noneRunning.add(waiter);
    return Timeouts.orAfter(waiter, null, timeout);
  }

  private synchronized int interruptAll() {
    running.values().forEach(Runnable::run);
    return running.size();
  }
}
