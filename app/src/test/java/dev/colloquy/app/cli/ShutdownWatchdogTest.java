package dev.colloquy.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * A node downed by the cluster whose actor system cannot terminate (an actor blocked for good) still
 * ends, with the downed node's status, so that its supervisor starts it again.
 */
class ShutdownWatchdogTest {

  @Test
  void aNodeWhoseActorSystemHangsOnTerminationEndsWithItsStatus() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(1);
    ActorSystem<String> system = ActorSystem.create(Behaviors.receiveMessage(message -> {
      blocked.countDown();
      release.await();
      return Behaviors.same();
    }), "watchdog", ConfigFactory.parseString("""
        pekko.coordinated-shutdown.phases.actor-system-terminate.timeout = 1s
        pekko.coordinated-shutdown.exit-jvm = off
        pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off
        """));
    CompletableFuture<Integer> ended = new CompletableFuture<>();
    try {
      ShutdownWatchdog.arm(system, Duration.ofSeconds(2), () -> ServeCommand.exitStatusOf(system), ended::complete);
      system.tell("block");
      assertThat(blocked.await(10, TimeUnit.SECONDS)).as("the actor is blocked").isTrue();

      CoordinatedShutdown.get(system).run(CoordinatedShutdown.clusterDowningReason());

      assertThat(ended.get(30, TimeUnit.SECONDS)).isEqualTo(ServeCommand.DOWNED_EXIT_CODE);
      assertThat(system.getWhenTerminated().toCompletableFuture().isDone())
          .as("the actor system was still terminating when the watchdog ended the process").isFalse();
    } finally {
      release.countDown();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
