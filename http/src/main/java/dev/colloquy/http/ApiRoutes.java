package dev.colloquy.http;

import java.util.function.BooleanSupplier;
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
    this(sessions, sessionList, journal, health, knowledge, Observability.none(), () -> true);
  }

  /** {@code acceptingTurns} turns false when the node begins to shut down. */
  public ApiRoutes(SessionRoutes sessions, SessionListRoutes sessionList, JournalRoutes journal, HealthRoutes health,
      Route knowledge, Observability observability, BooleanSupplier acceptingTurns) {
    TraceIds traceIds = new TraceIds();
    Errors errors = new Errors(traceIds, observability.logContent());
    MetricsRoutes metrics = new MetricsRoutes(observability.scrape());
    RequestGate journalWrites = RequestGate.journalWrites(observability.journalReachable());
    RequestGate newTurns = RequestGate.newTurns(acceptingTurns);
    Route sessionRoutes = sessions.route(traceIds);
    Route api = concat(health.route(), metrics.route(), new OpenApiRoutes().route(), journal.route(), knowledge,
        sessionList.route(), pathPrefixTest(PathMatchers.segment("v1").slash("sessions"),
            () -> newTurns.guard(() -> journalWrites.guard(() -> sessionRoutes))));
    this.route = traceIds.assign(() ->
        mapResponse(response -> ErrorCounting.count(response, observability.metrics()), () -> errors.handle(api)));
  }

  public Route route() {
    return route;
  }
}
