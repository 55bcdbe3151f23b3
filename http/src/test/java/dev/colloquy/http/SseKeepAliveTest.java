package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The node's one keep-alive timer: every open stream gets its comments, a stalled one holds nobody back. */
class SseKeepAliveTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final Duration INTERVAL = Duration.ofMillis(100);

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static SseKeepAlive keepAlive() {
    return SseKeepAlive.of(testKit.system(), INTERVAL);
  }

  private static List<ByteString> firstOf(Source<ByteString, ?> stream, int count) throws Exception {
    return stream.take(count).runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void aQuietStreamGetsKeepAliveComments() throws Exception {
    assertThat(firstOf(keepAlive().around(Source.<ByteString>never()), 3)).containsOnly(SseFraming.KEEP_ALIVE).hasSize(3);
  }

  @Test
  void streamsOfOneIntervalShareOneTimer() {
    assertThat(keepAlive()).isSameAs(keepAlive());
    assertThat(SseKeepAlive.of(testKit.system(), INTERVAL.multipliedBy(2))).isNotSameAs(keepAlive());
  }

  @Test
  void aStreamWhoseClientReadsNothingHoldsNoOtherStreamsKeepAliveBack() throws Exception {
    CompletableFuture<Void> never = new CompletableFuture<>();
    // Takes its first element, then never asks for another: its connection is stuck.
    CompletableFuture<Done> stuck = keepAlive().around(Source.<ByteString>never())
        .runWith(Sink.foreachAsync(1, comment -> never), testKit.system()).toCompletableFuture();
    try {
      assertThat(firstOf(keepAlive().around(Source.<ByteString>never()), 20)).containsOnly(SseFraming.KEEP_ALIVE).hasSize(20);
      assertThat(stuck).isNotDone();
    } finally {
      never.complete(null);
    }
  }

  @Test
  void aStreamEndsWithItsEvents() throws Exception {
    ByteString event = ByteString.fromString("data: {}\n\n");
    List<ByteString> all = keepAlive().around(Source.single(event)).runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(all).contains(event).last().isEqualTo(event);
  }
}
