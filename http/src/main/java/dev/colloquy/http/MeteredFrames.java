package dev.colloquy.http;

import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnFrame;
import java.time.Duration;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * A turn stream that counts itself open and closed and times its first frame and first token.
 *
 * <p>One stage in line with the frames, its state made each time the stream runs. Not a lazily made
 * source: that runs the frames as a sub-stream, which hands every frame and every pull across with an
 * asynchronous callback (two messages to the stream's actor per token).
 */
public final class MeteredFrames extends GraphStage<FlowShape<TurnFrame, TurnFrame>> {

  private final Inlet<TurnFrame> in = Inlet.create("MeteredFrames.in");
  private final Outlet<TurnFrame> out = Outlet.create("MeteredFrames.out");
  private final FlowShape<TurnFrame, TurnFrame> shape = FlowShape.of(in, out);
  private final long requestNanos;
  private final HttpMetrics metrics;

  private MeteredFrames(long requestNanos, HttpMetrics metrics) {
    this.requestNanos = requestNanos;
    this.metrics = metrics;
  }

  /** {@code frames}, metered from {@code requestNanos} (the request's arrival, by {@link System#nanoTime}). */
  public static Source<TurnFrame, NotUsed> meter(Source<TurnFrame, NotUsed> frames, long requestNanos, HttpMetrics metrics) {
    return frames.via(new MeteredFrames(requestNanos, metrics));
  }

  @Override
  public FlowShape<TurnFrame, TurnFrame> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new GraphStageLogic(shape) {
      private boolean firstFrame = true;
      private boolean firstToken = true;

      {
        setHandler(in, new AbstractInHandler() {
          @Override
          public void onPush() {
            TurnFrame frame = grab(in);
            if (firstFrame) {
              firstFrame = false;
              metrics.firstFrame(since(requestNanos));
            }
            if (firstToken && frame.event() instanceof StreamEvent.Token) {
              firstToken = false;
              metrics.firstToken(since(requestNanos));
            }
            push(out, frame);
          }
        });
        setHandler(out, new AbstractOutHandler() {
          @Override
          public void onPull() {
            pull(in);
          }
        });
      }

      @Override
      public void preStart() {
        metrics.streamOpened();
      }

      /** Runs however the stream ends: completed, failed, or cancelled by the client leaving. */
      @Override
      public void postStop() {
        metrics.streamClosed();
      }
    };
  }

  private static Duration since(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos);
  }
}
