package dev.colloquy.engine.session;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.turn.Transcript;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.SourceRef;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.StreamRefs;

/**
 * A turn's stream as a session's reply carries it; read it once with {@link #getSource()}. On the
 * session's own node it reads the turn's transcript directly, with nothing in between. When the
 * reply crosses to another node it is serialized as a {@link SourceRef} materialized at that
 * moment, so it streams across with backpressure and the client's cancellation coming back; only
 * replies that leave the node pay for a stream ref.
 */
@JsonSerialize(using = TurnFeed.AsSourceRef.class)
@JsonDeserialize(using = TurnFeed.FromSourceRef.class)
public abstract class TurnFeed {

  private TurnFeed() {}

  /** The frames; each feed is read once. */
  public abstract Source<TurnFrame, NotUsed> getSource();

  /** The same frames as a stream ref, for a reply that leaves this node. */
  abstract SourceRef<TurnFrame> sourceRef();

  /**
   * This feed with {@code stage} around its frames where they are read on this node (the reader's own
   * step, such as an HTTP route's admission). A reply that leaves the node carries the frames without it.
   */
  public TurnFeed through(UnaryOperator<Source<TurnFrame, NotUsed>> stage) {
    return new Through(this, stage);
  }

  /** The frames of a running (or queued) turn after {@code afterId}, live from its transcript. */
  static TurnFeed live(ActorSystem<?> system, Transcript transcript, long afterId) {
    return new Local(system, () -> transcript.frames(afterId));
  }

  /** The frames of a turn that has ended, which need nobody to tell them. */
  static TurnFeed replay(ActorSystem<?> system, List<TurnFrame> frames) {
    return new Local(system, () -> Source.from(frames));
  }

  private static final class Local extends TurnFeed {
    private final ActorSystem<?> system;
    private final Supplier<Source<TurnFrame, NotUsed>> frames;

    Local(ActorSystem<?> system, Supplier<Source<TurnFrame, NotUsed>> frames) {
      this.system = system;
      this.frames = frames;
    }

    @Override
    public Source<TurnFrame, NotUsed> getSource() {
      return frames.get();
    }

    @Override
    SourceRef<TurnFrame> sourceRef() {
      return frames.get().runWith(StreamRefs.sourceRef(), system);
    }
  }

  private static final class Through extends TurnFeed {
    private final TurnFeed feed;
    private final UnaryOperator<Source<TurnFrame, NotUsed>> stage;

    Through(TurnFeed feed, UnaryOperator<Source<TurnFrame, NotUsed>> stage) {
      this.feed = feed;
      this.stage = stage;
    }

    @Override
    public Source<TurnFrame, NotUsed> getSource() {
      return stage.apply(feed.getSource());
    }

    @Override
    SourceRef<TurnFrame> sourceRef() {
      return feed.sourceRef();
    }
  }

  /** A feed that came from another node. */
  private static final class Remote extends TurnFeed {
    private final SourceRef<TurnFrame> ref;

    Remote(SourceRef<TurnFrame> ref) {
      this.ref = ref;
    }

    @Override
    public Source<TurnFrame, NotUsed> getSource() {
      return ref.getSource();
    }

    @Override
    SourceRef<TurnFrame> sourceRef() {
      return ref;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Remote remote && remote.ref.equals(ref);
    }

    @Override
    public int hashCode() {
      return ref.hashCode();
    }
  }

  static final class AsSourceRef extends StdSerializer<TurnFeed> {
    AsSourceRef() {
      super(TurnFeed.class);
    }

    @Override
    public void serialize(TurnFeed feed, JsonGenerator json, SerializerProvider provider) throws IOException {
      provider.findValueSerializer(SourceRef.class).serialize(feed.sourceRef(), json, provider);
    }
  }

  static final class FromSourceRef extends StdDeserializer<TurnFeed> {
    FromSourceRef() {
      super(TurnFeed.class);
    }

    @Override
    @SuppressWarnings("unchecked")
    public TurnFeed deserialize(JsonParser json, DeserializationContext context) throws IOException {
      return new Remote((SourceRef<TurnFrame>) context.readValue(json, SourceRef.class));
    }
  }
}
