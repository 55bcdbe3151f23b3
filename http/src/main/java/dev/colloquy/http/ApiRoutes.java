package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.auth.Authentication;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.http.cors.Cors;
import dev.colloquy.http.cors.JsonOnly;
import dev.colloquy.http.limits.RateLimits;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The whole HTTP API, built once: every route family behind one trace id per request and one
 * mapping of failures to the error body of API.md. Health, readiness, metrics and this document
 * are open; {@code /v1/admin} takes the admin token, which also reads any session's journal;
 * everything else takes a tenant's credential and sees only that tenant's objects.
 */
public final class ApiRoutes extends AllDirectives {

  /** The prefix of every path the session, session list and journal routes serve, as their matchers match it. */
  private static final String SESSIONS = "/v1/sessions";

  private final Route route;

  public ApiRoutes(SessionRoutes sessions, SessionListRoutes sessionList, JournalRoutes journal, HealthRoutes health,
      BiFunction<Principal, String, Route> tenantRoutes, Authentication authentication) {
    this(sessions, sessionList, journal, health, tenantRoutes, authentication, traceId -> new AllDirectives() { }.reject(),
        Observability.none(), () -> true, null, null);
  }

  /**
   * {@code tenantRoutes} serves the caller's tenant's other route families (knowledge, billing,
   * configuration) for a principal and a trace id; {@code admin} serves {@code /v1/admin} for a trace id once the admin token has been
   * checked; {@code acceptingTurns} turns false when the node begins to shut down; {@code cors} lets
   * browsers in (without it, no CORS headers are sent); {@code limits} holds every authenticated
   * request to its tenant's rates and quotas, once (without it, nothing is limited).
   */
  public ApiRoutes(SessionRoutes sessions, SessionListRoutes sessionList, JournalRoutes journal, HealthRoutes health,
      BiFunction<Principal, String, Route> tenantRoutes, Authentication authentication, Function<String, Route> admin,
      Observability observability, BooleanSupplier acceptingTurns, Cors cors, RateLimits limits) {
    TraceIds traceIds = new TraceIds();
    Errors errors = new Errors(traceIds, observability.logContent());
    MetricsRoutes metrics = new MetricsRoutes(observability.scrape());
    RequestGate journalWrites = RequestGate.journalWrites(observability.journalReachable());
    RequestGate newTurns = RequestGate.newTurns(acceptingTurns);
    JsonOnly jsonOnly = new JsonOnly(List.of("/v1/knowledge/ingest"), List.of("/v1/sessions/import"));
    // Dispatched on the path first: only these three families serve /v1/sessions…, and a turn request
    // need not build and reject every dialect's and every other family's routes before its own.
    BiFunction<Principal, String, Route> routes = (principal, traceId) -> extractUri(uri ->
        uri.path().startsWith(SESSIONS)
            ? concat(journal.route(principal), sessionList.route(principal),
                newTurns.guard(() -> sessions.route(traceIds, principal)))
            : newTurns.guard(() -> tenantRoutes.apply(principal, traceId)));
    // Bodies are read once the caller is known, so an unauthenticated client costs no buffer.
    StrictBodies bodies = new StrictBodies(sessions.settings().requestBodyTimeout());
    BiFunction<Principal, String, Route> owned = limits == null
        ? (principal, traceId) -> bodies.read(() -> routes.apply(principal, traceId))
        : (principal, traceId) -> limits.limited(principal, traceId,
            () -> bodies.read(() -> routes.apply(principal, traceId)));
    Route api = concat(health.route(), metrics.route(), new OpenApiRoutes().route(),
        pathPrefixTest(PathMatchers.segment("v1").slash("admin"),
            () -> traceIds.traceId(traceId -> authentication.admin(traceId, () -> bodies.read(() -> admin.apply(traceId))))),
        authentication.withAdminToken(journal::operatorRoute),
        // Session writes are refused while the journal is down before the credential is looked up: the
        // key store shares the database, and the refusal must come at once, not after a connection timeout.
        journalWrites.guard(() -> traceIds.traceId(traceId -> authentication.principal(traceId, principal -> cors == null
            ? owned.apply(principal, traceId)
            : cors.allowedOrigin(principal.tenantId(), traceId, () -> owned.apply(principal, traceId))))));
    Route checked = traceIds.traceId(traceId -> jsonOnly.route(traceId, () -> errors.handle(api)));
    Route browsers = cors == null ? checked : traceIds.traceId(traceId -> cors.route(traceId, () -> checked));
    Route timed = traceIds.traceId(traceId -> withRequestTimeoutResponse(request -> timedOut(traceId), () -> browsers));
    this.route = traceIds.assign(() ->
        mapResponse(response -> ErrorCounting.count(response, observability.metrics()), () -> timed));
  }

  /**
   * The server's request timeout (which starts once the request has been received) passed before the
   * routes answered; everything they wait for has a shorter timeout of its own, so this is a backstop.
   */
  private static HttpResponse timedOut(String traceId) {
    return Errors.response(ErrorCode.RESPONSE_TIMEOUT, "The server did not answer in time; try again", traceId);
  }

  public Route route() {
    return route;
  }
}
