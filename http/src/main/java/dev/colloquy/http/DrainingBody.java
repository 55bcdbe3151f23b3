package dev.colloquy.http;

import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.RequestEntity;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.util.ByteString;

/**
 * A request body whose reader may give up on it without costing the client its answer. pekko-http
 * ends a connection at once when a request's body is cancelled before its response is out
 * (its server fails with "User handler flow was cancelled with ongoing request"), so a body refused
 * half-read (too large, too slow) would see its connection cut, the 408 or 413 unsent, whenever the
 * cancellation wins the race with the answer. Here the bytes after a refusal are read and dropped
 * instead: the answer goes out as an early response, after which the server closes the connection,
 * which ends the draining.
 *
 * <p>The size limit is counted here too, for the same reason: pekko's own limit cancels the body
 * when it is exceeded. A body that declares a length over the limit is refused unread, so a client
 * that sent {@code Expect: 100-continue} never sends it.
 */
final class DrainingBody extends GraphStage<FlowShape<ByteString, ByteString>> {

  private final Inlet<ByteString> in = Inlet.create("DrainingBody.in");
  private final Outlet<ByteString> out = Outlet.create("DrainingBody.out");
  private final FlowShape<ByteString, ByteString> shape = FlowShape.of(in, out);
  private final long maxBytes;

  private DrainingBody(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * {@code entity}, limited to {@code maxBytes} and drained when its reader stops early; throws
   * {@link EntityStreamSizeException} at once when it declares more.
   */
  static RequestEntity limited(RequestEntity entity, long maxBytes) {
    var declared = entity.getContentLengthOption();
    if (declared.isPresent() && declared.getAsLong() > maxBytes) {
      throw new EntityStreamSizeException(maxBytes, scala.Option.apply(declared.getAsLong()));
    }
    if (entity.isStrict() || entity.isKnownEmpty()) {
      return entity;
    }
    Source<ByteString, Object> bytes = entity.withoutSizeLimit().getDataBytes().via(new DrainingBody(maxBytes));
    return declared.isPresent()
        ? HttpEntities.create(entity.getContentType(), declared.getAsLong(), bytes)
        : HttpEntities.createChunked(entity.getContentType(), bytes);
  }

  @Override
  public FlowShape<ByteString, ByteString> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new GraphStageLogic(shape) {
      private long received;

      {
        setHandler(in, new AbstractInHandler() {
          @Override
          public void onPush() {
            ByteString chunk = grab(in);
            if (isClosed(out)) {
              pull(in);
              return;
            }
            received += chunk.size();
            if (received > maxBytes) {
              fail(out, new EntityStreamSizeException(maxBytes, scala.Option.empty()));
              pull(in);
            } else {
              push(out, chunk);
            }
          }
        });
        setHandler(out, new AbstractOutHandler() {
          @Override
          public void onPull() {
            pull(in);
          }

          /** The reader gave up: the rest of the body is read and dropped until it ends or the connection closes. */
          @Override
          public void onDownstreamFinish(Throwable cause) {
            if (!hasBeenPulled(in) && !isClosed(in)) {
              pull(in);
            }
          }
        });
      }
    };
  }
}
