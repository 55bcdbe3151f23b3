package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Refuses requests that would write to the journal while it is unreachable, at once and before any
 * session or model is involved; reads go through (a session in memory can still answer them), and
 * so does a cancel.
 */
final class JournalGate extends AllDirectives {

  private final BooleanSupplier journalReachable;

  JournalGate(BooleanSupplier journalReachable) {
    this.journalReachable = journalReachable;
  }

  Route writes(Supplier<Route> inner) {
    return extractRequest(request -> {
      boolean read = request.method().equals(HttpMethods.GET) || request.method().equals(HttpMethods.HEAD);
      // A cancel stops a model call that is still streaming (and costing) whether or not the
      // journal can record it; the turn then ends as interrupted.
      boolean cancel = request.getUri().path().endsWith("/cancel");
      if (!read && !cancel && !journalReachable.getAsBoolean()) {
        throw new ApiException(ErrorCode.JOURNAL_UNAVAILABLE,
            "The journal is unavailable; nothing was recorded or sent to a model. Try again later");
      }
      return inner.get();
    });
  }
}
