package dev.colloquy.http;

import dev.colloquy.engine.InFlight;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.BidiShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * This node's HTTP connections, which a stopping node closes the way a client expects: each once the
 * response it is writing has been written to its last byte. pekko-http's own termination fails every
 * connection whose routes owe no response, which includes one still writing a streamed body that has
 * ended: the bytes still on their way to the socket (an event stream's terminal event, its last chunk)
 * are then dropped and the client reads a reset instead of the end of its stream.
 *
 * <p>Closing here ends the connection's responses and nothing else, so pekko-http writes what the
 * current one still holds and then closes the socket as after a {@code Connection: close} response; a
 * request the routes are still answering gets its answer first. A connection counts as open until its
 * HTTP side has stopped: by then its last bytes belong to the socket, which writes them and closes
 * whatever the server's termination does next (it finds nothing left to fail).
 */
public final class OpenConnections {

  private final InFlight connections = new InFlight();
  /** How to cut each open connection (see {@link #cutAll(Duration)}). */
  private final Map<Object, Runnable> cuts = new ConcurrentHashMap<>();

  /** {@code handler} with its connection counted here: what a server binds, once per connection. */
  public Flow<HttpRequest, HttpResponse, NotUsed> around(Flow<HttpRequest, HttpResponse, ?> handler) {
    return BidiFlow.fromGraph(new Closable()).join(handler.mapMaterializedValue(any -> NotUsed.getInstance()));
  }

  /**
   * Closes every open connection once the routes have answered what it asked; completes with none open
   * when all have handed their last bytes to their sockets, or after {@code timeout} with how many are
   * still waiting for an answer.
   */
  public CompletionStage<Integer> closeAll(Duration timeout) {
    return connections.drain(Duration.ZERO, timeout).thenApply(asked -> connections.count());
  }

  /**
   * Closes every open connection now: a request still waiting for the routes is answered 503 with
   * {@code Retry-After} (see {@link Errors#nodeStopped()}), as by pekko-http's own termination past its
   * deadline, and the connection closes once that is written. For a stopping node, after
   * {@link #closeAll} gave the routes their time. Completes when none is open, or after {@code timeout}
   * with how many still are.
   */
  public CompletionStage<Integer> cutAll(Duration timeout) {
    cuts.values().forEach(Runnable::run);
    return connections.whenNoneRunning(timeout).thenApply(none -> connections.count());
  }

  public int count() {
    return connections.count();
  }

  private final class Closable extends GraphStage<BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse>> {

    private final Inlet<HttpRequest> requestsIn = Inlet.create("OpenConnections.requestsIn");
    private final Outlet<HttpRequest> requestsOut = Outlet.create("OpenConnections.requestsOut");
    private final Inlet<HttpResponse> responsesIn = Inlet.create("OpenConnections.responsesIn");
    private final Outlet<HttpResponse> responsesOut = Outlet.create("OpenConnections.responsesOut");
    private final BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse> shape =
        BidiShape.of(requestsIn, requestsOut, responsesIn, responsesOut);

    @Override
    public BidiShape<HttpRequest, HttpRequest, HttpResponse, HttpResponse> shape() {
      return shape;
    }

    @Override
    public GraphStageLogic createLogic(Attributes attributes) {
      return new GraphStageLogic(shape) {
        /** Requests passed to the routes whose response has not come back yet. */
        private int owed;
        private boolean closing;

        {
          setHandler(requestsIn, new AbstractInHandler() {
            @Override
            public void onPush() {
              owed++;
              push(requestsOut, grab(requestsIn));
            }

            /** The client closed its side: what the routes still owe it is still sent. */
            @Override
            public void onUpstreamFinish() {
              complete(requestsOut);
            }
          });
          setHandler(requestsOut, new AbstractOutHandler() {
            @Override
            public void onPull() {
              if (!closing) {
                pull(requestsIn);
              }
            }
          });
          setHandler(responsesIn, new AbstractInHandler() {
            @Override
            public void onPush() {
              owed--;
              HttpResponse response = grab(responsesIn);
              // A request that raced the close has nowhere to be answered: the connection is ending,
              // as a keep-alive connection a server closes does, and its client sends it again.
              if (isClosed(responsesOut)) {
                return;
              }
              push(responsesOut, response);
              if (closing && owed == 0) {
                complete(responsesOut);
              }
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
          AsyncCallback<Done> close = createAsyncCallback(done -> closeOnceAnswered());
          connections.started(this, () -> close.invoke(Done.getInstance()));
          AsyncCallback<Done> cut = createAsyncCallback(done -> cut());
          cuts.put(this, () -> cut.invoke(Done.getInstance()));
        }

        private void closeOnceAnswered() {
          closing = true;
          if (owed == 0 && !isClosed(responsesOut)) {
            complete(responsesOut);
          }
        }

        /** The routes' answer no longer awaited: the request waiting gets the stopped node's 503. */
        private void cut() {
          closing = true;
          if (isClosed(responsesOut)) {
            return;
          }
          if (owed > 0 && isAvailable(responsesOut)) {
            owed--;
            push(responsesOut, Errors.nodeStopped());
          }
          complete(responsesOut);
        }

        @Override
        public void postStop() {
          cuts.remove(this);
          connections.ended(this);
        }
      };
    }
  }
}
