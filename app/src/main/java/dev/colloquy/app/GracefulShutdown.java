package dev.colloquy.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ShutdownSettings;
import dev.colloquy.engine.InFlight;
import dev.colloquy.http.OpenConnections;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What stopping a node does, as phases of Pekko's coordinated shutdown. Before the HTTP server
 * unbinds, the node refuses new turns and drains the running ones, interrupting those that outlive
 * the drain timeout, waits for the streams to end and closes its connections once each has written
 * its last byte; only then does the server stop (so no stream is cut before its terminal event), the
 * shards are handed over and the actor system terminates.
 */
public final class GracefulShutdown {

  private static final Logger log = LoggerFactory.getLogger(GracefulShutdown.class);

  /** How long interrupted turns get to journal their end and send their terminal event. */
  static final Duration INTERRUPT_ALLOWANCE = Duration.ofSeconds(10);

  /** How long the streams of ended turns get to write their last events before the server closes them. */
  static final Duration STREAM_ALLOWANCE = Duration.ofSeconds(5);

  /**
   * How long the connections get to be answered what they asked before they close; the server's own
   * termination that follows would drop what a connection has not written yet (see {@link OpenConnections}).
   */
  static final Duration CLOSE_ALLOWANCE = Duration.ofSeconds(5);

  private static final String DRAIN_PHASE = CoordinatedShutdown.PhaseBeforeServiceUnbind();

  private GracefulShutdown() {}

  /**
   * The drain's phase must outlast the drain: Pekko gives every phase 5 s by default and then moves
   * on, which would unbind the server under the running turns.
   */
  static Config phaseTimeouts(ShutdownSettings settings) {
    Duration phase = settings.drainTimeout().plus(INTERRUPT_ALLOWANCE).plus(STREAM_ALLOWANCE).plus(CLOSE_ALLOWANCE)
        .plusSeconds(5);
    return ConfigFactory.parseMap(Map.of(
        "pekko.coordinated-shutdown.phases." + DRAIN_PHASE + ".timeout", phase.toMillis() + "ms"));
  }

  static void register(ActorSystem<?> system, InFlight turns, InFlight streams, OpenConnections connections,
      ShutdownSettings settings) {
    CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
    shutdown.addTask(DRAIN_PHASE, "drain-turns", () -> {
      if (stoppedByClose(shutdown)) {
        return CompletableFuture.completedFuture(Done.getInstance());
      }
      log.info("Shutting down: no new turns; {} running get up to {} to finish", turns.count(), settings.drainTimeout());
      long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
      return turns.drain(settings.drainTimeout(), INTERRUPT_ALLOWANCE)
          .thenCompose(interrupted -> {
            // Streams of turns hosted on other nodes go on after this node's own turns have ended:
            // they get what is left of the drain, and at least the time to write a last event.
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            Duration wait = left.compareTo(STREAM_ALLOWANCE) > 0 ? left : STREAM_ALLOWANCE;
            log.info("Turns drained ({} interrupted); {} streams still open get up to {}", interrupted, streams.count(), wait);
            return streams.whenNoneRunning(wait);
          })
          .thenCompose(ended -> connections.closeAll(CLOSE_ALLOWANCE))
          .thenApply(stillOpen -> {
            if (stillOpen > 0) {
              log.info("{} connections still wait for an answer after {}; the server closes them", stillOpen, CLOSE_ALLOWANCE);
            }
            return Done.getInstance();
          });
    });
  }

  /**
   * {@link Colloquy#close()} (an embedding program, a test) stops at once, as it always has: turns
   * still running are recorded as interrupted when their sessions next recover. So does a node the
   * cluster has downed: its shards already run elsewhere, and draining would keep a second writer
   * for their sessions. Signals drain.
   */
  private static boolean stoppedByClose(CoordinatedShutdown shutdown) {
    return shutdown.getShutdownReason()
        .map(reason -> reason.equals(CoordinatedShutdown.actorSystemTerminateReason())
            || reason.equals(CoordinatedShutdown.clusterDowningReason()))
        .orElse(false);
  }

  /** Runs every phase, the drain included, and returns once the actor system has terminated. */
  public static void run(ActorSystem<?> system) {
    CoordinatedShutdown.get(system).runAll(CoordinatedShutdown.jvmExitReason()).toCompletableFuture().join();
    system.getWhenTerminated().toCompletableFuture().join();
  }
}
