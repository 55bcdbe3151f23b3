package dev.colloquy.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/** Liveness ({@code /health}) and readiness ({@code /ready}: journal reachable, cluster member up). */
public final class HealthRoutes extends AllDirectives {

  private static final int DB_CHECK_SECONDS = 2;

  private final ActorSystem<?> system;
  private final DataSource dataSource;
  private final Executor blocking;

  public HealthRoutes(ActorSystem<?> system, DataSource dataSource, Executor blocking) {
    this.system = system;
    this.dataSource = dataSource;
    this.blocking = blocking;
  }

  public Route route() {
    return concat(
        path("health", () -> get(() -> json(true, Json.MAPPER.createObjectNode().put("status", "ok")))),
        path("ready", () -> get(() -> onSuccess(journalReachable(), reachable -> {
          boolean up = Cluster.get(system).selfMember().status() == MemberStatus.up();
          ObjectNode body = Json.MAPPER.createObjectNode().put("status", reachable && up ? "ready" : "not_ready");
          body.putObject("checks").put("journal", reachable).put("cluster_member_up", up);
          return json(reachable && up, body);
        }))));
  }

  private CompletionStage<Boolean> journalReachable() {
    return CompletableFuture.supplyAsync(() -> {
      try (Connection connection = dataSource.getConnection()) {
        return connection.isValid(DB_CHECK_SECONDS);
      } catch (Exception e) {
        return false;
      }
    }, blocking);
  }

  private Route json(boolean ok, ObjectNode body) {
    return complete(HttpResponse.create()
        .withStatus(ok ? StatusCodes.OK : StatusCodes.SERVICE_UNAVAILABLE)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString())));
  }
}
