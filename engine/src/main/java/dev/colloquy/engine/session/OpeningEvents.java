package dev.colloquy.engine.session;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.colloquy.engine.session.ChatSession.Event;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.SourceRef;
import org.apache.pekko.stream.StreamRefAttributes;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.StreamRefs;
import org.apache.pekko.util.ByteString;

/**
 * The events a new session opens with (a fork's opening and inherited turns, an imported journal), as
 * a command or reply carries them. They can be far larger than a remote message may be: a fork
 * inherits up to 49 turns of up to 2.1 MiB each, an import is up to 8 MiB, and Artery drops a message
 * past its frame with nothing but a log line. So when they leave their node they are not sent whole:
 * the message carries a {@link SourceRef}, and the receiver pulls the events through it, serialized
 * and cut into parts of {@link #PART_BYTES}, a few at a time, over the large-message channel the
 * stream refs' stage actors use. On their own node they are read directly. A reference is read once.
 */
@JsonSerialize(using = OpeningEvents.AsSourceRef.class)
@JsonDeserialize(using = OpeningEvents.FromSourceRef.class)
public abstract class OpeningEvents {

  /** A part's size: a quarter of the large-message channel's 4 MiB frame. */
  static final int PART_BYTES = 1024 * 1024;
  /** Parts the receiver asks for ahead: enough to keep the transfer moving, little held in buffers. */
  private static final int PARTS_AHEAD = 4;
  /** Far more than the largest opening needs between two nodes; a lost node fails the transfer by then. */
  public static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(60);

  private OpeningEvents() {}

  /** {@code events}, made on this node. */
  public static OpeningEvents of(ActorSystem<?> system, List<Event> events) {
    return new Local(system, List.copyOf(events));
  }

  /** The events; a failed future when they could not be brought from the node that made them. */
  public abstract CompletionStage<List<Event>> events(ActorSystem<?> system);

  /** The events as a stream of serialized parts, for a message that leaves this node. */
  abstract SourceRef<ByteString> sourceRef(ObjectCodec codec);

  /** Carries a list of events as one value, so that each keeps its type name. */
  record Batch(List<Event> events) {}

  private static final class Local extends OpeningEvents {
    private final ActorSystem<?> system;
    private final List<Event> events;

    Local(ActorSystem<?> system, List<Event> events) {
      this.system = system;
      this.events = events;
    }

    @Override
    public CompletionStage<List<Event>> events(ActorSystem<?> reader) {
      return CompletableFuture.completedFuture(events);
    }

    /** Serialized only when the receiver asks for the first part, on the stream's thread, not Artery's. */
    @Override
    SourceRef<ByteString> sourceRef(ObjectCodec codec) {
      return Source.single(events)
          .map(batch -> encode(codec, batch))
          .mapConcat(OpeningEvents::parts)
          .runWith(StreamRefs.sourceRef(), system);
    }
  }

  /** Events that another node made, read through its stream ref. */
  private static final class Remote extends OpeningEvents {
    private final SourceRef<ByteString> ref;
    private final ObjectCodec codec;

    Remote(SourceRef<ByteString> ref, ObjectCodec codec) {
      this.ref = ref;
      this.codec = codec;
    }

    @Override
    public CompletionStage<List<Event>> events(ActorSystem<?> system) {
      return ref.getSource()
          .addAttributes(StreamRefAttributes.bufferCapacity(PARTS_AHEAD))
          .completionTimeout(TRANSFER_TIMEOUT)
          .runFold(ByteString.emptyByteString(), ByteString::concat, system)
          .thenApply(bytes -> decode(codec, bytes));
    }

    @Override
    SourceRef<ByteString> sourceRef(ObjectCodec unused) {
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

  private static byte[] encode(ObjectCodec codec, List<Event> events) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator generator = codec.getFactory().createGenerator(out)) {
      codec.writeValue(generator, new Batch(events));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static List<Event> decode(ObjectCodec codec, ByteString bytes) {
    try (JsonParser parser = codec.getFactory().createParser(bytes.toArray())) {
      return codec.readValue(parser, Batch.class).events();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<ByteString> parts(byte[] bytes) {
    List<ByteString> parts = new ArrayList<>();
    for (int from = 0; from < bytes.length; from += PART_BYTES) {
      parts.add(ByteString.fromArray(bytes, from, Math.min(PART_BYTES, bytes.length - from)));
    }
    return parts;
  }

  static final class AsSourceRef extends StdSerializer<OpeningEvents> {
    AsSourceRef() {
      super(OpeningEvents.class);
    }

    @Override
    public void serialize(OpeningEvents events, JsonGenerator json, SerializerProvider provider) throws IOException {
      provider.findValueSerializer(SourceRef.class).serialize(events.sourceRef(json.getCodec()), json, provider);
    }
  }

  static final class FromSourceRef extends StdDeserializer<OpeningEvents> {
    FromSourceRef() {
      super(OpeningEvents.class);
    }

    @Override
    @SuppressWarnings("unchecked")
    public OpeningEvents deserialize(JsonParser json, DeserializationContext context) throws IOException {
      ObjectCodec codec = json.getCodec();
      return new Remote((SourceRef<ByteString>) context.readValue(json, SourceRef.class), codec);
    }
  }
}
