package dev.colloquy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The engine's timeouts, as the futures and actions that use them see them. */
class TimeoutsTest {

  @Test
  void aFutureThatDoesNotCompleteInTimeFailsWithATimeout() {
    CompletableFuture<String> never = new CompletableFuture<>();

    CompletableFuture<String> timed = Timeouts.within(never, Duration.ofMillis(50));

    assertThatThrownBy(() -> timed.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
    assertThat(timed).isSameAs(never);
  }

  @Test
  void aFutureThatCompletesInTimeKeepsItsValue() throws Exception {
    CompletableFuture<String> soon = new CompletableFuture<>();
    CompletableFuture<String> timed = Timeouts.within(soon, Duration.ofMillis(100));

    soon.complete("done");

    assertThat(timed.get(5, TimeUnit.SECONDS)).isEqualTo("done");
  }

  @Test
  void aFutureGivenAValueAfterItsTimeoutCompletesWithThatValue() throws Exception {
    CompletableFuture<Boolean> never = new CompletableFuture<>();

    assertThat(Timeouts.orAfter(never, false, Duration.ofMillis(50)).get(5, TimeUnit.SECONDS)).isFalse();
  }

  @Test
  void aDelayedActionRunsAfterItsDelayUnlessCancelled() throws Exception {
    AtomicBoolean cancelledRan = new AtomicBoolean();
    CompletableFuture<Long> ran = new CompletableFuture<>();
    long start = System.nanoTime();

    Timeouts.after(Duration.ofMillis(50), () -> cancelledRan.set(true)).cancel(false);
    Timeouts.after(Duration.ofMillis(100), () -> ran.complete(System.nanoTime()));

    // The timer runs its actions in the order they fall due: once the later one ran, the cancelled one's time had passed.
    assertThat(ran.get(5, TimeUnit.SECONDS) - start).isGreaterThanOrEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(cancelledRan).isFalse();
  }
}
