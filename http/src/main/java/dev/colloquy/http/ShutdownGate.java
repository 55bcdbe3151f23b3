package dev.colloquy.http;

import dev.colloquy.engine.session.ChatSession;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Refuses new sessions and new turns while this node shuts down. The session refuses them too, but only on the node
 * that hosts it: a draining node would otherwise still start turns for sessions hosted elsewhere and
 * then close their streams under them. Joins, cancels and reads go through.
 */
final class ShutdownGate extends AllDirectives {

  private final BooleanSupplier acceptingTurns;

  ShutdownGate(BooleanSupplier acceptingTurns) {
    this.acceptingTurns = acceptingTurns;
  }

  Route newTurns(Supplier<Route> inner) {
    return extractRequest(request -> {
      String path = request.getUri().path();
      boolean post = request.method().equals(HttpMethods.POST);
      boolean newTurn = post && path.endsWith("/turns");
      boolean newSession = post && (path.equals("/v1/sessions") || path.equals("/v1/sessions/"));
      if ((newTurn || newSession) && !acceptingTurns.getAsBoolean()) {
        throw new ApiException(StatusCodes.SERVICE_UNAVAILABLE, ChatSession.SHUTTING_DOWN,
            "This node is shutting down and takes no new sessions or turns; try again in a moment");
      }
      return inner.get();
    });
  }
}
