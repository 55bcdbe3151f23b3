package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/** Refuses some requests at once, before any session or model is involved, while what they need is missing. */
final class RequestGate extends AllDirectives {

  private final Predicate<HttpRequest> guarded;
  private final BooleanSupplier open;
  private final ErrorCode code;
  private final String message;

  private RequestGate(Predicate<HttpRequest> guarded, BooleanSupplier open, ErrorCode code, String message) {
    this.guarded = guarded;
    this.open = open;
    this.code = code;
    this.message = message;
  }

  /**
   * Requests that would write to the journal while it is unreachable. Reads go through (a session in
   * memory can still answer them), and so does a cancel: it stops a model call that is still
   * streaming (and costing) whether or not the journal can record it; the turn then ends as interrupted.
   */
  static RequestGate journalWrites(BooleanSupplier journalReachable) {
    return new RequestGate(request -> writesSessions(request.getUri().path()) && !isRead(request)
        && !request.getUri().path().endsWith("/cancel"),
        journalReachable, ErrorCode.JOURNAL_UNAVAILABLE,
        "The journal is unavailable; nothing was recorded or sent to a model. Try again later");
  }

  /**
   * New sessions and new turns while this node shuts down. The session refuses turns too, but only on
   * the node that hosts it: a draining node would otherwise still start turns for sessions hosted
   * elsewhere and then close their streams under them. Joins, cancels and reads go through.
   */
  static RequestGate newTurns(BooleanSupplier acceptingTurns) {
    return new RequestGate(RequestGate::opensSessionOrTurn, acceptingTurns, ErrorCode.SHUTTING_DOWN,
        "This node is shutting down and takes no new sessions or turns; try again in a moment");
  }

  private static boolean opensSessionOrTurn(HttpRequest request) {
    String path = request.getUri().path();
    return request.method().equals(HttpMethods.POST)
        && (path.endsWith("/turns") || path.equals("/v1/sessions") || path.equals("/v1/sessions/")
            || path.equals(CHAT_COMPLETIONS) || path.equals(CONVERSATIONS));
  }

  /** The OpenAI dialect's completion opens a session or starts a turn. */
  private static final String CHAT_COMPLETIONS = "/v1/chat/completions";
  /** The fan-out dialect's conversations are sessions. */
  private static final String CONVERSATIONS = "/v1/conversations";

  private static boolean writesSessions(String path) {
    return path.startsWith("/v1/sessions") || path.equals(CHAT_COMPLETIONS) || path.startsWith(CONVERSATIONS);
  }

  Route guard(Supplier<Route> inner) {
    return extractRequest(request -> {
      if (guarded.test(request) && !open.getAsBoolean()) {
        throw new ApiException(code, message);
      }
      return inner.get();
    });
  }

  private static boolean isRead(HttpRequest request) {
    return request.method().equals(HttpMethods.GET) || request.method().equals(HttpMethods.HEAD);
  }
}
