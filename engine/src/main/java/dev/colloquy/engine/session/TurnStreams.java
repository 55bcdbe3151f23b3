package dev.colloquy.engine.session;

import dev.colloquy.engine.domain.TurnFrame;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.SourceRef;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.StreamRefs;
import org.apache.pekko.stream.typed.javadsl.ActorSource;

/**
 * A turn's stream is materialized on the session's node and handed out as a {@link SourceRef}, so
 * it crosses to whichever node serves the client with backpressure and with the client's
 * cancellation coming back. It is the one path, on the session's own node too: there a SourceRef
 * is never serialized and costs one more in-memory hop per frame (bench/RESULTS.md has the
 * figures), not worth a second way of subscribing, leaving and resuming to keep right.
 */
final class TurnStreams {

  /**
   * Frames a slow client may fall behind by before its stream fails; it can resume with
   * Last-Event-ID, since the turn keeps every frame.
   */
  static final int BUFFER = 10_000;

  private TurnStreams() {}

  /** A live stream: the turn tells frames to {@code subscriber}; the stream ends after the terminal frame. */
  record Live(ActorRef<TurnFrame> subscriber, SourceRef<TurnFrame> frames) {}

  /**
   * Opens a live stream. When it ends for any reason (terminal frame, client gone, buffer
   * overflow, never subscribed within the stream-ref subscription timeout) {@code left} is called
   * with the subscriber, from a stream thread.
   */
  static Live live(ActorSystem<?> system, Consumer<ActorRef<TurnFrame>> left) {
    Pair<Pair<ActorRef<TurnFrame>, CompletionStage<Done>>, SourceRef<TurnFrame>> materialized =
        ActorSource.<TurnFrame>actorRef(frame -> false, frame -> Optional.empty(), BUFFER, OverflowStrategy.fail())
            .takeWhile(frame -> !frame.terminal(), true)
            .watchTermination(Keep.both())
            .toMat(StreamRefs.sourceRef(), Keep.both())
            .run(system);
    ActorRef<TurnFrame> subscriber = materialized.first().first();
    materialized.first().second().whenComplete((done, error) -> left.accept(subscriber));
    return new Live(subscriber, materialized.second());
  }

  /** The frames of a turn that has ended, which need nobody to tell them. */
  static SourceRef<TurnFrame> replay(ActorSystem<?> system, List<TurnFrame> frames) {
    return Source.from(frames).runWith(StreamRefs.sourceRef(), system);
  }
}
