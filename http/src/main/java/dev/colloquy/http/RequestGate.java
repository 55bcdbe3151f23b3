package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import java.util.ArrayList;
import java.util.List;
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
    return new RequestGate(request -> writesSessions(request) && !isRead(request) && !isCancel(request),
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

  /**
   * {@code POST /v1/sessions} and {@code POST /v1/sessions/{id}/turns} (and the dialects' {@code
   * /v1/conversations[/{id}/turns]} and {@code /v1/chat/completions}), matched by segment as the
   * routes match them: a trailing slash, which the routes accept, must not let a request past.
   */
  private static boolean opensSessionOrTurn(HttpRequest request) {
    List<String> path = segments(request);
    return request.method().equals(HttpMethods.POST)
        && (((underSessions(path) || underConversations(path))
                && (path.size() == 2 || (path.size() == 4 && path.get(3).equals("turns"))))
            || (underSessions(path) && path.size() == 4 && path.get(3).equals("fork"))
            || (underSessions(path) && path.size() == 3 && path.get(2).equals("import"))
            || path.equals(CHAT_COMPLETIONS));
  }

  /** The OpenAI dialect's completion opens a session or starts a turn. */
  private static final List<String> CHAT_COMPLETIONS = List.of("v1", "chat", "completions");

  private static boolean writesSessions(HttpRequest request) {
    List<String> path = segments(request);
    return underSessions(path) || underConversations(path) || path.equals(CHAT_COMPLETIONS);
  }

  /** {@code POST /v1/sessions/{id}/turns/{turn_id}/cancel}, and nothing that merely ends in "cancel". */
  private static boolean isCancel(HttpRequest request) {
    List<String> path = segments(request);
    return request.method().equals(HttpMethods.POST) && underSessions(path) && path.size() == 6
        && path.get(3).equals("turns") && path.get(5).equals("cancel");
  }

  private static boolean underSessions(List<String> path) {
    return path.size() >= 2 && path.get(0).equals("v1") && path.get(1).equals("sessions");
  }

  /** The fan-out dialect's conversations are sessions. */
  private static boolean underConversations(List<String> path) {
    return path.size() >= 2 && path.get(0).equals("v1") && path.get(1).equals("conversations");
  }

  /** The path's segments without empty ones: the router never matches an empty segment as an id. */
  private static List<String> segments(HttpRequest request) {
    List<String> segments = new ArrayList<>();
    for (String segment : request.getUri().pathSegments()) {
      if (!segment.isEmpty()) {
        segments.add(segment);
      }
    }
    return segments;
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
