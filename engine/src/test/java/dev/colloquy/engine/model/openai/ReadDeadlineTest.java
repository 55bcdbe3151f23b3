package dev.colloquy.engine.model.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A model call's two limits: the endpoint's silence, and the whole call's length however busy its stream. */
class ReadDeadlineTest {

  @Test
  void aCallThatHearsNothingExpiresAfterItsQuietTimeoutLongBeforeItsLimit() throws Exception {
    CountDownLatch expired = new CountDownLatch(1);
    long started = System.nanoTime();

    ReadDeadline.start(Duration.ofMillis(200), Duration.ofMinutes(1), expired::countDown);

    assertThat(expired.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
  }

  @Test
  void readsThatKeepComingPushTheQuietTimeoutBackButNotPastTheCallsLimit() throws Exception {
    CountDownLatch expired = new CountDownLatch(1);
    long started = System.nanoTime();
    ReadDeadline deadline = ReadDeadline.start(Duration.ofMillis(200), Duration.ofMillis(800), expired::countDown);

    // A stream whose reads come every 20 ms: never quiet for 200 ms, for at most 10 s.
    while (!expired.await(20, TimeUnit.MILLISECONDS) && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10)) {
      deadline.reading();
    }

    assertThat(expired.getCount()).as("expired within 10 s").isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(800));
  }

  @Test
  void aCallThatEndsBeforeEitherLimitNeverExpires() throws Exception {
    CountDownLatch expired = new CountDownLatch(1);
    ReadDeadline deadline = ReadDeadline.start(Duration.ofMillis(100), Duration.ofMillis(150), expired::countDown);

    deadline.end();

    assertThat(expired.await(500, TimeUnit.MILLISECONDS)).as("expired after its end").isFalse();
  }
}
