package dev.colloquy.app.cli;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A node must end once it has decided to stop: a node the cluster downed is restarted by its supervisor
 * only after its process has exited. Every phase of Pekko's shutdown has a timeout, but past the last
 * one nothing ends the process: an actor system still terminating, or a pool or file of the node that
 * does not close, because a thread is blocked for good (on a database the network cut it from, say),
 * keeps it alive, neither member nor gone. Once the shutdown reaches its last phase, the watchdog gives
 * the process {@code grace} to end; past it, it prints every thread's stack to stderr (what hung) and
 * halts the process with the status it would have exited with.
 */
final class ShutdownWatchdog {

  private ShutdownWatchdog() {}

  static void arm(ActorSystem<?> system, Duration grace, IntSupplier exitStatus) {
    // exit would wait for the shutdown hooks, which may be what hangs.
    arm(system, grace, exitStatus, Runtime.getRuntime()::halt);
  }

  /** {@code end} ends the process with the status (a test records it instead). */
  static void arm(ActorSystem<?> system, Duration grace, IntSupplier exitStatus, IntConsumer end) {
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "exit-watchdog",
        () -> {
          Thread watchdog = new Thread(() -> watch(system, grace, exitStatus, end), "colloquy-exit-watchdog");
          watchdog.setDaemon(true);
          watchdog.start();
          return CompletableFuture.completedFuture(Done.getInstance());
        });
  }

  private static void watch(ActorSystem<?> system, Duration grace, IntSupplier exitStatus, IntConsumer end) {
    try {
      // A process that ends in time takes this daemon thread with it.
      Thread.sleep(grace);
    } catch (InterruptedException stopped) {
      return;
    }
    int status = exitStatus.getAsInt();
    System.err.println("colloquy: the node did not finish stopping within " + grace.toSeconds()
        + " s of its last shutdown phase (actor system " + (system.getWhenTerminated().toCompletableFuture().isDone()
        ? "terminated" : "still terminating") + "); its threads follow, then it exits with status " + status);
    for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false, 64)) {
      System.err.print(thread);
    }
    System.err.flush();
    end.accept(status);
  }
}
