package dev.colloquy.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/** Liveness ({@code /health}) and readiness ({@code /ready}: journal reachable, cluster member up, not shutting down). */
public final class HealthRoutes extends AllDirectives {

  private final ActorSystem<?> system;
  private final Supplier<CompletionStage<Boolean>> journalReachable;
  private final BooleanSupplier acceptingTurns;

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
        path("health", () -> get(() -> json(true, Json.MAPPER.createObjectNode().put("status", "ok")))),
        path("ready", () -> get(() -> onSuccess(journalReachable.get(), reachable -> {
          boolean up = Cluster.get(system).selfMember().status() == MemberStatus.up();
          boolean accepting = acceptingTurns.getAsBoolean();
          boolean ready = reachable && up && accepting;
          ObjectNode body = Json.MAPPER.createObjectNode().put("status", ready ? "ready" : "not_ready");
          body.putObject("checks").put("journal", reachable).put("cluster_member_up", up).put("accepting_turns", accepting);
          return json(ready, body);
        }))));
  }

  private Route json(boolean ok, ObjectNode body) {
    return complete(HttpResponse.create()
        .withStatus(ok ? StatusCodes.OK : StatusCodes.SERVICE_UNAVAILABLE)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString())));
  }
}
