package dev.colloquy.http;

import java.time.Duration;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.ResponseEntity;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.BidiShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.TimerGraphStageLogic;
import org.apache.pekko.util.ByteString;

/**
 * Closes a connection that does not deliver the head (request line and headers) of its next request
 * in time: from the moment it is opened, and from the moment the body of its last response has been
 * written. pekko-http has no such timeout (its idle timeout restarts with every byte, so a client
 * sending a header a byte at a time holds a connection for ever; akka-http issue 813); a slow body
 * is the request timeout's business, since a route answers only once it has read the body.
 *
 * <p>It sits between the server's HTTP layer and the routes and sees whole requests only, so it
 * cannot tell a half-sent head from a quiet keep-alive connection: both are closed when the timeout
 * passes, as servers close idle keep-alive connections anyway. A client opens a new one.
 */
public final class RequestHeadTimeout
    extends GraphStage<BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse>> {

  private static final String DEADLINE = "request-head";

  private final Inlet<HttpRequest> requestsIn = Inlet.create("RequestHeadTimeout.requestsIn");
  private final Outlet<HttpRequest> requestsOut = Outlet.create("RequestHeadTimeout.requestsOut");
  private final Inlet<HttpResponse> responsesIn = Inlet.create("RequestHeadTimeout.responsesIn");
  private final Outlet<HttpResponse> responsesOut = Outlet.create("RequestHeadTimeout.responsesOut");
  private final BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse> shape =
      BidiShape.of(requestsIn, requestsOut, responsesIn, responsesOut);
  private final Duration timeout;

  private RequestHeadTimeout(Duration timeout) {
    this.timeout = timeout;
  }

  /** {@code handler} (the routes as a flow), behind the timeout: what a server binds, once per connection. */
  public static Flow<HttpRequest, HttpResponse, NotUsed> around(Flow<HttpRequest, HttpResponse, ?> handler,
      Duration timeout) {
    return BidiFlow.fromGraph(new RequestHeadTimeout(timeout)).join(handler.mapMaterializedValue(any -> NotUsed.getInstance()));
  }

  @Override
  public BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new TimerGraphStageLogic(shape) {
      /** Requests whose response body has not been written to the end yet. */
      private int open;
      private AsyncCallback<Done> responseWritten;

      {
        setHandler(requestsIn, new AbstractInHandler() {
          @Override
          public void onPush() {
            cancelTimer(DEADLINE);
            open++;
            push(requestsOut, grab(requestsIn));
          }

          /** The last request (Connection: close) still gets its response. */
          @Override
          public void onUpstreamFinish() {
            complete(requestsOut);
          }
        });
        setHandler(requestsOut, new AbstractOutHandler() {
          @Override
          public void onPull() {
            pull(requestsIn);
          }
        });
        setHandler(responsesIn, new AbstractInHandler() {
          @Override
          public void onPush() {
            push(responsesOut, watched(grab(responsesIn)));
          }

          @Override
          public void onUpstreamFinish() {
            complete(responsesOut);
          }
        });
        setHandler(responsesOut, new AbstractOutHandler() {
          @Override
          public void onPull() {
            pull(responsesIn);
          }
        });
      }

      @Override
      public void preStart() {
        responseWritten = createAsyncCallback(done -> written());
        scheduleOnce(DEADLINE, timeout);
      }

      private void written() {
        if (--open == 0) {
          scheduleOnce(DEADLINE, timeout);
        }
      }

      /** A response's body is watched to its end; a strict one is written right away. */
      private HttpResponse watched(HttpResponse response) {
        ResponseEntity entity = response.entity();
        if (entity.isStrict() || entity.isKnownEmpty()) {
          written();
          return response;
        }
        Source<ByteString, Object> bytes = entity.getDataBytes().watchTermination((mat, written) -> {
          written.whenComplete((done, failure) -> responseWritten.invoke(Done.getInstance()));
          return mat;
        });
        if (entity.isChunked()) {
          return response.withEntity(HttpEntities.createChunked(entity.getContentType(), bytes));
        }
        return response.withEntity(entity.getContentLengthOption().isPresent()
            ? HttpEntities.create(entity.getContentType(), entity.getContentLengthOption().getAsLong(), bytes)
            : HttpEntities.createCloseDelimited(entity.getContentType(), bytes));
      }

      @Override
      public void onTimer(Object key) {
        if (open == 0) {
          completeStage();
        }
      }
    };
  }
}
