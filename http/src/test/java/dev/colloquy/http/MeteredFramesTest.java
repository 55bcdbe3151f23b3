package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** What a turn stream reports to the metrics: open and closed however it ends, its first frame and first token once. */
class MeteredFramesTest {

  private static final ActorTestKit testKit = ActorTestKit.create();

  private static final TurnFrame STARTED = new TurnFrame(1, "s", "t", "tr", new StreamEvent.Started(List.of("r1")));
  private static final TurnFrame TOKEN = new TurnFrame(2, "s", "t", "tr", new StreamEvent.Token("r1", "hi"));
  private static final TurnFrame SECOND_TOKEN = new TurnFrame(3, "s", "t", "tr", new StreamEvent.Token("r1", " there"));
  private static final TurnFrame CANCELLED = new TurnFrame(4, "s", "t", "tr", new TurnEnding.Cancelled("cancelled"));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  /** Counts what the stream reports, as the node's Prometheus metrics would. */
  private static final class Counted implements HttpMetrics {
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();
    final AtomicInteger firstFrames = new AtomicInteger();
    final AtomicInteger firstTokens = new AtomicInteger();
    /** Open until the stream has said it closed, which may come just after its reader has finished. */
    final CountDownLatch closing = new CountDownLatch(1);

    boolean closedWithin10Seconds() throws InterruptedException {
      return closing.await(10, TimeUnit.SECONDS);
    }

    @Override
    public void streamOpened() {
      opened.incrementAndGet();
    }

    @Override
    public void streamClosed() {
      closed.incrementAndGet();
      closing.countDown();
    }

    @Override
    public void firstFrame(Duration latency) {
      firstFrames.incrementAndGet();
    }

    @Override
    public void firstToken(Duration latency) {
      assertThat(latency).isPositive();
      firstTokens.incrementAndGet();
    }
  }

  @Test
  void aStreamIsCountedOpenWhileItRunsAndItsFirstFrameAndFirstTokenAreTimedOnce() throws Exception {
    Counted metrics = new Counted();
    Source<TurnFrame, NotUsed> frames =
        MeteredFrames.meter(Source.from(List.of(STARTED, TOKEN, SECOND_TOKEN, CANCELLED)), System.nanoTime(), metrics);
    assertThat(metrics.opened).as("not open before it runs").hasValue(0);

    List<TurnFrame> read = frames.runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(read).containsExactly(STARTED, TOKEN, SECOND_TOKEN, CANCELLED);
    assertThat(metrics.opened).hasValue(1);
    assertThat(metrics.closedWithin10Seconds()).isTrue();
    assertThat(metrics.closed).hasValue(1);
    assertThat(metrics.firstFrames).hasValue(1);
    assertThat(metrics.firstTokens).hasValue(1);
  }

  @Test
  void aStreamTheClientLeavesIsCountedClosed() throws Exception {
    Counted metrics = new Counted();
    // A turn that never ends: the client takes its first frame and goes.
    Source<TurnFrame, NotUsed> endless = Source.single(STARTED).concat(Source.<TurnFrame>never());

    List<TurnFrame> read = MeteredFrames.meter(endless, System.nanoTime(), metrics).take(1)
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(read).containsExactly(STARTED);
    assertThat(metrics.opened).hasValue(1);
    assertThat(metrics.closedWithin10Seconds()).isTrue();
    assertThat(metrics.closed).hasValue(1);
    assertThat(metrics.firstTokens).as("no token came").hasValue(0);
  }

  @Test
  void aStreamThatFailsIsCountedClosed() throws Exception {
    Counted metrics = new Counted();
    Source<TurnFrame, NotUsed> failing = Source.single(STARTED).concat(Source.failed(new IllegalStateException("lost")));

    var done = MeteredFrames.meter(failing, System.nanoTime(), metrics).runWith(Sink.ignore(), testKit.system())
        .toCompletableFuture();

    assertThat(done).failsWithin(Duration.ofSeconds(10));
    assertThat(metrics.opened).hasValue(1);
    assertThat(metrics.closedWithin10Seconds()).isTrue();
    assertThat(metrics.closed).hasValue(1);
  }
}
