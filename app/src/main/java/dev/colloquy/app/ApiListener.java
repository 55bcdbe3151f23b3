package dev.colloquy.app;

import dev.colloquy.http.OpenConnections;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.IncomingConnection;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * The API's port: bound, and its connections accepted, on a dispatcher of their own
 * ({@value #ACCEPT_DISPATCHER}, one thread that does nothing else).
 *
 * <p>pekko-http's {@code bindFlow} accepts on the actors' dispatcher: each accepted connection asks the
 * listener for the next one from there, so every accept waits for a thread behind whatever the node's
 * open streams have queued. With thousands of streams on two threads, clients connecting a few hundred
 * a second outran it: the kernel's queue of connections waiting to be accepted filled (4,096) and
 * clients timed out connecting, without the node ever answering them or refusing them. Here the accept
 * and the setting up of the connection's stream take that one thread, and the connection then runs on
 * the actors' dispatcher as before, where a node too busy to start a turn refuses it.
 *
 * <p>As with {@code bindFlow}, at most {@code pekko.http.server.max-connections} are open at once; the
 * next waits to be accepted until one closes.
 */
final class ApiListener {

  static final String ACCEPT_DISPATCHER = "pekko.colloquy-accept-dispatcher";

  /** How long connections cut at the deadline get to write their last response before the node stops. */
  private static final Duration CUT_ALLOWANCE = Duration.ofSeconds(1);

  private final ServerBinding binding;

  private ApiListener(ServerBinding binding) {
    this.binding = binding;
  }

  /**
   * Binds {@code host:port} and serves each connection with {@code handler}, whose connections
   * {@code open} counts. Stopping the node unbinds the port, then closes each connection still open once
   * it has been answered what it asked, and cuts those still waiting after {@code hardDeadline}: what
   * pekko-http's own termination does for the connections it accepts.
   */
  static CompletionStage<ApiListener> bind(ActorSystem<?> system, String host, int port,
      Flow<HttpRequest, HttpResponse, NotUsed> handler, OpenConnections open, Duration hardDeadline) {
    Materializer materializer = Materializer.matFromSystem(system);
    Flow<HttpRequest, HttpResponse, CompletionStage<Done>> served =
        handler.watchTermination((notUsed, done) -> done);
    int maxConnections = ServerSettings.create(system.settings().config()).getMaxConnections();
    return Http.get(system).newServerAt(host, port).connectionSource()
        .mapAsyncUnordered(maxConnections, connection -> closed(connection, served, materializer))
        .to(Sink.ignore())
        .withAttributes(ActorAttributes.dispatcher(ACCEPT_DISPATCHER))
        .run(materializer)
        .thenApply(binding -> {
          ApiListener listener = new ApiListener(binding);
          listener.stopWith(system, open, hardDeadline);
          return listener;
        });
  }

  /** Serves one connection; completes when it has closed, whichever way. */
  private static CompletionStage<Done> closed(IncomingConnection connection,
      Flow<HttpRequest, HttpResponse, CompletionStage<Done>> served, Materializer materializer) {
    try {
      return connection.handleWith(served, materializer).exceptionally(failed -> Done.getInstance());
    } catch (RuntimeException failedToStart) {
      // A connection whose stream cannot start (the materializer is shutting down) is dropped alone.
      return CompletableFuture.completedFuture(Done.getInstance());
    }
  }

  ServerBinding binding() {
    return binding;
  }

  private void stopWith(ActorSystem<?> system, OpenConnections open, Duration hardDeadline) {
    // Unbinds the port; its termination finds no connection of its own to close.
    binding.addToCoordinatedShutdown(hardDeadline, system);
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "close-api-connections",
        () -> open.closeAll(hardDeadline)
            .thenCompose(stillOpen -> stillOpen > 0 ? open.cutAll(CUT_ALLOWANCE) : CompletableFuture.completedFuture(0))
            .thenApply(stillOpen -> Done.getInstance()));
  }
}
