package dev.colloquy.http.cors;

import dev.colloquy.config.CorsSettings;
import dev.colloquy.http.Errors;
import dev.colloquy.http.tenant.TenantConfigs;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Browsers: which origins may call the API. {@link #route} wraps every route: it answers preflights
 * and lets in the origins of {@code COLLOQUY_CORS_ORIGINS}. {@link #allowedOrigin} runs once the
 * tenant is known and refuses an origin neither list allows.
 *
 * <p>A preflight carries no credential, so it cannot tell whose origins apply: it is answered for
 * every well-formed origin and the request that follows is what is refused. The origin is echoed,
 * never {@code *}, and {@code Access-Control-Allow-Credentials} is never sent: credentials are bearer
 * headers, not cookies.
 */
public final class Cors extends AllDirectives {

  static final String ORIGIN_NOT_ALLOWED = "ORIGIN_NOT_ALLOWED";

  static final String ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE";
  static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");
  static final String ALLOWED_HEADERS =
      "Authorization, Content-Type, X-API-Key, X-User-Id, Last-Event-ID, Accept, traceparent, X-Request-Id, X-Trace-Id";
  static final String EXPOSED_HEADERS = "Retry-After, Location";

  private final CorsSettings settings;
  private final TenantConfigs configs;

  public Cors(CorsSettings settings, TenantConfigs configs) {
    this.settings = settings;
    this.configs = configs;
  }

  public Route route(String traceId, Supplier<Route> inner) {
    return extractRequest(request -> {
      Optional<String> origin = request.getHeader("Origin").map(HttpHeader::value);
      if (origin.isEmpty()) {
        return inner.get();
      }
      if (isPreflight(request)) {
        return complete(preflight(request, origin.get(), traceId));
      }
      return mapResponse(response -> withCorsHeaders(response, origin.get(), settings.origins()), inner);
    });
  }

  /**
   * Refuses with 403 {@code ORIGIN_NOT_ALLOWED} a browser request whose {@code Origin} is neither the
   * server's own, nor in {@code COLLOQUY_CORS_ORIGINS}, nor in the tenant's {@code allowed_origins};
   * lets it in with the CORS headers otherwise. Requests without {@code Origin} (not from a browser) pass.
   */
  public Route allowedOrigin(String tenantId, String traceId, Supplier<Route> inner) {
    return extractRequest(request -> {
      Optional<String> origin = request.getHeader("Origin").map(HttpHeader::value);
      if (origin.isEmpty() || sameOrigin(request, origin.get()) || allows(settings.origins(), origin.get())) {
        return inner.get();
      }
      return onSuccess(configs.current(tenantId), current -> allows(current.config().allowedOrigins(), origin.get())
          ? mapResponse(response -> withCorsHeaders(response, origin.get(), List.of(CorsSettings.normalize(origin.get()))), inner)
          : complete(Errors.response(StatusCodes.FORBIDDEN, ORIGIN_NOT_ALLOWED,
              "Requests from origin " + origin.get() + " are not allowed for this tenant", traceId)));
    });
  }

  private static boolean isPreflight(HttpRequest request) {
    return request.method().equals(HttpMethods.OPTIONS)
        && request.getHeader("Access-Control-Request-Method").isPresent();
  }

  private HttpResponse preflight(HttpRequest request, String origin, String traceId) {
    String method = request.getHeader("Access-Control-Request-Method").map(HttpHeader::value).orElse("");
    if (!CorsSettings.isOrigin(origin) || !METHODS.contains(method)) {
      return Errors.response(StatusCodes.FORBIDDEN, ORIGIN_NOT_ALLOWED,
          "Cross-origin " + method + " requests from " + origin + " are not allowed", traceId)
          .addHeader(RawHeader.create("Vary", "Origin"));
    }
    return HttpResponse.create().withStatus(StatusCodes.NO_CONTENT).addHeaders(List.of(
        RawHeader.create("Access-Control-Allow-Origin", origin),
        RawHeader.create("Access-Control-Allow-Methods", ALLOWED_METHODS),
        RawHeader.create("Access-Control-Allow-Headers", ALLOWED_HEADERS),
        RawHeader.create("Access-Control-Max-Age", String.valueOf(settings.preflightMaxAge().toSeconds())),
        RawHeader.create("Vary", "Origin")));
  }

  /** Every answer to a browser varies by Origin; only an allowed one gets Access-Control-Allow-Origin. */
  private static HttpResponse withCorsHeaders(HttpResponse response, String origin, List<String> allowed) {
    HttpResponse varied = response.getHeader("Vary").map(vary -> vary.value().contains("Origin")).orElse(false)
        ? response : response.addHeader(RawHeader.create("Vary", "Origin"));
    if (!allows(allowed, origin) || varied.getHeader("Access-Control-Allow-Origin").isPresent()) {
      return varied;
    }
    return varied.addHeaders(List.of(
        RawHeader.create("Access-Control-Allow-Origin", origin),
        RawHeader.create("Access-Control-Expose-Headers", EXPOSED_HEADERS)));
  }

  static boolean allows(List<String> allowed, String origin) {
    return allowed.stream().anyMatch(o -> CorsSettings.allows(o, origin));
  }

  /** The bundled web UI calls the API from the server's own origin. */
  private static boolean sameOrigin(HttpRequest request, String origin) {
    return request.getHeader("Host").map(host -> CorsSettings.isOrigin(origin)
            && CorsSettings.normalize(origin).replaceFirst("^https?://", "").equals(CorsSettings.normalize(host.value())))
        .orElse(false);
  }
}
