package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.session.ChatSession;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.GetShardRegionState;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A session with no turn for the idle timeout is closed with reason idle, even after it has left
 * memory: the reaper finds it in the read side and the session, brought back from its journal,
 * closes itself with a summary that billing records.
 */
class IdleCloseIntegrationTest {

  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(3);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.session.passivation-timeout", "1s",
      "colloquy.session.idle-timeout", IDLE_TIMEOUT.toSeconds() + "s",
      "colloquy.session.idle-check-interval", "500ms"));

  @Test
  void aPassivatedSessionIsClosedForIdlenessWithItsSummary() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Then I go quiet"));
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    Instant lastActivity = Instant.now();

    ReadTables.await("the session leaves memory before its idle deadline", IDLE_TIMEOUT,
        () -> !entitiesInMemory().contains(sessionId));
    assertThat(Duration.between(lastActivity, Instant.now())).isLessThan(IDLE_TIMEOUT);
    ReadTables.await("the reaper closes the session", Duration.ofSeconds(20),
        () -> api.session(sessionId).path("status").asText().equals("closed"));

    JsonNode session = api.session(sessionId);
    assertThat(session.path("close_reason").asText()).isEqualTo("idle");
    // Closed as of the idle deadline the session keeps itself (its last journaled activity plus the
    // timeout), not when the reaper happened to look, nor when this client saw the turn end.
    JsonNode events = api.get("/v1/sessions/" + sessionId + "/journal").json().path("events");
    Instant turnEnded = java.util.stream.StreamSupport.stream(events.spliterator(), false)
        .filter(event -> event.path("type").asText().equals("TurnCompleted"))
        .map(event -> Instant.parse(event.at("/event/at").asText()))
        .findFirst().orElseThrow();
    assertThat(Instant.parse(session.at("/summary/closed_at").asText())).isEqualTo(turnEnded.plus(IDLE_TIMEOUT));
    assertThat(turnEnded).isBeforeOrEqualTo(lastActivity);
    IdleCloseAssertions.closedForIdleness(api, app.colloquy(), sessionId, turn.json());
    Api.Response refused = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Are you there?"));
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.json().at("/error/code").asText()).isEqualTo("SESSION_CLOSED");
  }

  @Test
  void aSessionWithATurnWithinEveryIdleTimeoutStaysOpen() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    Instant until = Instant.now().plus(IDLE_TIMEOUT.multipliedBy(2));
    while (Instant.now().isBefore(until)) {
      Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Still here"));
      assertThat(turn.status()).as(turn.body()).isEqualTo(200);
      // The pause is the point: time must pass, less than the idle timeout, between turns.
      java.util.concurrent.locks.LockSupport.parkNanos(IDLE_TIMEOUT.dividedBy(3).toNanos());
    }

    assertThat(api.session(sessionId).path("status").asText()).isEqualTo("open");
  }

  private static Set<String> entitiesInMemory() throws Exception {
    var system = app.colloquy().system();
    ShardRegion.CurrentShardRegionState state = AskPattern.<org.apache.pekko.cluster.sharding.typed.ClusterShardingQuery, ShardRegion.CurrentShardRegionState>ask(
        ClusterSharding.get(system).shardState(),
        replyTo -> new GetShardRegionState(ChatSession.ENTITY_KEY, replyTo),
        Duration.ofSeconds(5), system.scheduler()).toCompletableFuture().get();
    return state.getShards().stream().flatMap(shard -> shard.getEntityIds().stream()).collect(Collectors.toSet());
  }
}
