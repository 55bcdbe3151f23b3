package dev.colloquy.http.auth;

import dev.colloquy.config.CorsSettings;
import dev.colloquy.http.Errors;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * What a public key ({@code cpk_…}) may do. It is written into web pages for anyone to read, so it
 * opens only the widget's routes (start a session, run and follow a turn, stop it, end the session,
 * read its transcript back after a reload: {@link #WIDGET_ROUTES}), only in a browser on one of the
 * tenant's {@code allowed_origins}, and only for the visitor the widget names (see {@link
 * Principal.Kind#VISITOR}): a visitor reaches only the sessions it opened itself, as any user does, so
 * a transcript is its own conversation and never another visitor's or the tenant's. Anything else is 403: {@code
 * FORBIDDEN} for another route, {@code ORIGIN_NOT_ALLOWED} for a request without an allowed
 * {@code Origin}. The origin check keeps other sites from using a tenant's key in their pages;
 * it cannot stop a program that forges the header, which is why the key opens nothing more.
 */
final class PublicKeyScope extends AllDirectives {

  static final String ORIGIN_NOT_ALLOWED = "ORIGIN_NOT_ALLOWED";

  private static final String ID = "[^/]+";

  /** Method and path of every route a public key opens: the canonical API's and the support dialect's. */
  static final List<Pattern> WIDGET_ROUTES = List.of(
      Pattern.compile("POST /v1/sessions/?"),
      Pattern.compile("POST /v1/sessions/" + ID + "/turns/?"),
      Pattern.compile("GET /v1/sessions/" + ID + "/turns/" + ID + "/events"),
      Pattern.compile("POST /v1/sessions/" + ID + "/turns/" + ID + "/cancel"),
      Pattern.compile("POST /v1/sessions/" + ID + "/close"),
      Pattern.compile("POST /v1/session/start"),
      Pattern.compile("POST /v1/chat/message"),
      Pattern.compile("GET /v1/chat/message/stream"),
      Pattern.compile("POST /v1/session/" + ID + "/end"),
      Pattern.compile("GET /v1/session/" + ID + "/transcript"));

  private final Function<String, CompletionStage<List<String>>> allowedOrigins;

  /** {@code allowedOrigins} gives a tenant's {@code allowed_origins} by its id. */
  PublicKeyScope(Function<String, CompletionStage<List<String>>> allowedOrigins) {
    this.allowedOrigins = allowedOrigins;
  }

  /** Without the tenants' origins no origin is allowed: public keys open nothing. */
  static PublicKeyScope closed() {
    return new PublicKeyScope(tenantId -> CompletableFuture.completedFuture(List.of()));
  }

  Route scope(Principal visitor, String traceId, Supplier<Route> inner) {
    return extractRequest(request -> {
      if (!isWidgetRoute(request)) {
        return complete(Errors.response(StatusCodes.FORBIDDEN, Authentication.FORBIDDEN,
            "A public key opens only the widget's routes", traceId));
      }
      Optional<String> origin = request.getHeader("Origin").map(HttpHeader::value);
      if (origin.isEmpty() || !CorsSettings.isOrigin(origin.get())) {
        return complete(Errors.response(StatusCodes.FORBIDDEN, ORIGIN_NOT_ALLOWED,
            "A public key is accepted only from a page on one of the tenant's allowed origins", traceId));
      }
      return onSuccess(allowedOrigins.apply(visitor.tenantId()), allowed -> allows(allowed, origin.get())
          ? inner.get()
          : complete(readableRefusal(origin.get(), traceId)));
    });
  }

  static boolean isWidgetRoute(HttpRequest request) {
    String line = request.method().name() + " " + request.getUri().path();
    return WIDGET_ROUTES.stream().anyMatch(route -> route.matcher(line).matches());
  }

  private static boolean allows(List<String> allowed, String origin) {
    String normalized = CorsSettings.normalize(origin);
    return allowed.stream().anyMatch(o -> CorsSettings.normalize(o).equals(normalized));
  }

  /**
   * The refusal carries the refused origin in {@code Access-Control-Allow-Origin}, so the widget on that
   * page can read it and say the chat is not available there, instead of seeing a bare network error.
   * It tells the page only what it already knows: that it is not one of the tenant's sites.
   */
  private static HttpResponse readableRefusal(String origin, String traceId) {
    return Errors.response(StatusCodes.FORBIDDEN, ORIGIN_NOT_ALLOWED,
            "Requests from origin " + origin + " are not allowed for this tenant", traceId)
        .addHeaders(List.of(RawHeader.create("Access-Control-Allow-Origin", origin), RawHeader.create("Vary", "Origin")));
  }
}
