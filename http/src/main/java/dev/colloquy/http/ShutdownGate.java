package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Refuses new turns while this node shuts down. The session refuses them too, but only on the node
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
      boolean newTurn = request.method().equals(HttpMethods.POST) && request.getUri().path().endsWith("/turns");
      if (newTurn && !acceptingTurns.getAsBoolean()) {
        throw new ApiException(ErrorCode.SHUTTING_DOWN,
            "This node is shutting down and takes no new turns; try again in a moment");
      }
      return inner.get();
    });
  }
}
