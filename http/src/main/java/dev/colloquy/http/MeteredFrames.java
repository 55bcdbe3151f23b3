package dev.colloquy.http;

import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/** A turn stream that counts itself open and closed and times its first frame and first token. */
public final class MeteredFrames {

  private MeteredFrames() {}

  public static Source<TurnFrame, NotUsed> meter(Source<TurnFrame, NotUsed> frames, long requestNanos, HttpMetrics metrics) {
    return Source.lazySource(() -> {
      metrics.streamOpened();
      AtomicBoolean firstFrame = new AtomicBoolean(true);
      AtomicBoolean firstToken = new AtomicBoolean(true);
      return frames
          .map(frame -> {
            if (firstFrame.getAndSet(false)) {
              metrics.firstFrame(since(requestNanos));
            }
            if (frame.event() instanceof StreamEvent.Token && firstToken.getAndSet(false)) {
              metrics.firstToken(since(requestNanos));
            }
            return frame;
          })
          .watchTermination((mat, done) -> {
            done.whenComplete((ok, error) -> metrics.streamClosed());
            return mat;
          });
    }).mapMaterializedValue(future -> NotUsed.getInstance());
  }

  private static Duration since(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos);
  }
}
