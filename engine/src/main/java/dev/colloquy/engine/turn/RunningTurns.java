package dev.colloquy.engine.turn;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The turns running on this node. A node that is shutting down uses it to refuse new turns, to wait
 * for the running ones, and to interrupt those that outlive the drain. Every {@link TurnSupervisor}
 * is registered for as long as it lives. Node-local: one per running application, never sent.
 */
public final class RunningTurns {

  private final Set<ActorRef<TurnSupervisor.Command>> running = new HashSet<>();
  private final List<CompletableFuture<Void>> noneRunning = new ArrayList<>();
  private volatile boolean draining;

  synchronized void register(ActorRef<TurnSupervisor.Command> supervisor) {
    running.add(supervisor);
  }

  synchronized void unregister(ActorRef<TurnSupervisor.Command> supervisor) {
    running.remove(supervisor);
    if (running.isEmpty()) {
      List<CompletableFuture<Void>> waiters = List.copyOf(noneRunning);
      noneRunning.clear();
      waiters.forEach(waiter -> waiter.complete(null));
    }
  }

  public synchronized int count() {
    return running.size();
  }

  /** True once the node has begun to shut down: sessions hosted here refuse new turns. */
  public boolean draining() {
    return draining;
  }

  /**
   * Refuses new turns from now on, gives the running ones {@code deadline} to end, then interrupts
   * those left and gives them {@code interruptAllowance} to record it. Completes with how many
   * turns were interrupted.
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

  private synchronized int interruptAll() {
    running.forEach(supervisor -> supervisor.tell(new TurnSupervisor.Interrupt()));
    return running.size();
  }

  /** Completes when no turn runs here, or after {@code timeout} whatever still runs. */
  private synchronized CompletableFuture<Void> whenNoneRunning(Duration timeout) {
    if (running.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> waiter = new CompletableFuture<>();
    noneRunning.add(waiter);
    return waiter.completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
