package dev.colloquy.http;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Liveness ({@code /health}, and {@code /v1/health} with the API's version as the Support agent
 * contract asks) and readiness ({@code /ready}: journal reachable, cluster member up, not shutting down).
 */
public final class HealthRoutes extends AllDirectives {

  private final ActorSystem<?> system;
  private final Supplier<CompletionStage<Boolean>> journalReachable;
  private final BooleanSupplier acceptingTurns;
  private final VersionedHealth versioned = new VersionedHealth("ok", OpenApiRoutes.version());

  public HealthRoutes(ActorSystem<?> system, Supplier<CompletionStage<Boolean>> journalReachable) {
    this(system, journalReachable, () -> true);
  }

  /** {@code acceptingTurns} turns false when the node begins to shut down, so balancers stop sending it work. */
  public HealthRoutes(ActorSystem<?> system, Supplier<CompletionStage<Boolean>> journalReachable,
      BooleanSupplier acceptingTurns) {
    this.system = system;
    this.journalReachable = journalReachable;
    this.acceptingTurns = acceptingTurns;
  }

  public Route route() {
    return concat(
        path("health", () -> get(() -> complete(Json.response(StatusCodes.OK, new Health("ok"))))),
        path(segment("v1").slash("health"), () -> get(() -> complete(Json.response(StatusCodes.OK, versioned)))),
        path("ready", () -> get(() -> onSuccess(checks(), this::readiness))));
  }

  private CompletionStage<Checks> checks() {
    return journalReachable.get().thenApply(reachable -> new Checks(reachable,
        Cluster.get(system).selfMember().status() == MemberStatus.up(), acceptingTurns.getAsBoolean()));
  }

  private Route readiness(Checks checks) {
    return complete(Json.response(checks.ready() ? StatusCodes.OK : StatusCodes.SERVICE_UNAVAILABLE,
        new Readiness(checks.ready() ? "ready" : "not_ready", checks)));
  }

  record Health(String status) {}

  record VersionedHealth(String status, String version) {}

  record Readiness(String status, Checks checks) {}

  record Checks(boolean journal, boolean clusterMemberUp, boolean acceptingTurns) {
    boolean ready() {
      return journal && clusterMemberUp && acceptingTurns;
    }
  }
}
