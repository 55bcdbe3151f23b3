package dev.colloquy.http;

import dev.colloquy.http.cors.Cors;
import dev.colloquy.http.cors.JsonOnly;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The whole HTTP API, built once: every route family behind one trace id per request and one
 * mapping of failures to the error body of API.md.
 */
public final class ApiRoutes extends AllDirectives {

  private final Route route;

  public ApiRoutes(SessionRoutes sessions, SessionListRoutes sessionList, JournalRoutes journal, HealthRoutes health,
      Route knowledge) {
    this(sessions, sessionList, journal, health, knowledge, Observability.none(), () -> true, null, null);
  }

  public ApiRoutes(SessionRoutes sessions, SessionListRoutes sessionList, JournalRoutes journal, HealthRoutes health,
      Route knowledge, Observability observability, BooleanSupplier acceptingTurns) {
    this(sessions, sessionList, journal, health, knowledge, observability, acceptingTurns, null, null);
  }

  /**
   * {@code acceptingTurns} turns false when the node begins to shut down. {@code tenantConfig} serves
   * {@code /v1/config} for a trace id; {@code cors} lets browsers in (without it, no CORS headers are sent).
   */
  public ApiRoutes(SessionRoutes sessions, SessionListRoutes sessionList, JournalRoutes journal, HealthRoutes health,
      Route knowledge, Observability observability, BooleanSupplier acceptingTurns,
      Function<String, Route> tenantConfig, Cors cors) {
    TraceIds traceIds = new TraceIds();
    Errors errors = new Errors(traceIds, observability.logContent());
    MetricsRoutes metrics = new MetricsRoutes(observability.scrape());
    RequestGate journalWrites = RequestGate.journalWrites(observability.journalReachable());
    RequestGate newTurns = RequestGate.newTurns(acceptingTurns);
    JsonOnly jsonOnly = new JsonOnly(List.of("/v1/knowledge/ingest"));
    Route sessionRoutes = sessions.route(traceIds);
    Route config = tenantConfig == null ? reject() : traceIds.traceId(tenantConfig);
    Route api = concat(health.route(), metrics.route(), new OpenApiRoutes().route(), journal.route(), knowledge,
        sessionList.route(), config, pathPrefixTest(PathMatchers.segment("v1").slash("sessions"),
            () -> newTurns.guard(() -> journalWrites.guard(() -> sessionRoutes))));
    Route checked = traceIds.traceId(traceId -> jsonOnly.route(traceId, () -> errors.handle(api)));
    Route browsers = cors == null ? checked : traceIds.traceId(traceId -> cors.route(traceId, () -> checked));
    this.route = traceIds.assign(() ->
        mapResponse(response -> ErrorCounting.count(response, observability.metrics()), () -> browsers));
  }

  public Route route() {
    return route;
  }
}
