package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.mockllm.MockLlmSettings;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A session leaves memory after the passivation timeout and its next request brings it back from
 * the journal (and its snapshots, in the subclass that takes them often) with nothing lost; a turn
 * that runs longer than the timeout is never cut short by it. Each subclass runs the real
 * application with its own snapshot interval.
 */
abstract class PassivationScenarios {

  static final Duration PASSIVATION = Duration.ofSeconds(2);
  /** A turn of about 4 s, twice the passivation timeout: 80 tokens, 50 ms apart. */
  static final MockLlmSettings SLOW_TURN =
      TestColloquy.fastMock().withTokens(80).withDelays(Duration.ofMillis(50), Duration.ofMillis(50));
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  abstract RunningColloquy app();

  /** Snapshot rows the session must have when the passivated session comes back: none or some. */
  abstract void checkSnapshots(long snapshots);

  @Test
  void aPassivatedSessionComesBackWithItsMessagesNarrativeStateAndTurnsAndGoesOn() throws Exception {
    Api api = app().api();
    JsonNode story = api.ingest("harbour.md", ("# The Harbour\n\n## The keeper\n\nThe keeper is Ada, who lights the lamp.\n\n"
        + "## The storm\n\nThe storm comes every winter from the north.\n").getBytes(StandardCharsets.UTF_8));
    assertThat(story.path("status").asText()).isEqualTo("ready");
    String sessionId = api.openSession();
    for (String message : List.of("Who is the keeper?", "When does the storm come?")) {
      Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn(message));
      assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    }
    JsonNode before = api.session(sessionId);
    assertThat(live(sessionId)).as("in memory right after a request").isTrue();
    assertThat(before.path("messages")).hasSize(4);
    assertThat(before.path("messages").get(1).path("citations").findValuesAsText("source")).contains("harbour.md");
    assertThat(before.path("narrative_state").path("completed_turns").asInt()).isEqualTo(2);

    await("session " + sessionId + " passivated", () -> !live(sessionId));
    checkSnapshots(snapshotRows(sessionId));
    JsonNode after = api.session(sessionId);

    assertThat(live(sessionId)).as("back in memory after its next request").isTrue();
    assertThat(after.path("messages")).isEqualTo(before.path("messages"));
    assertThat(after.path("narrative_state")).isEqualTo(before.path("narrative_state"));
    assertThat(after.path("title").asText()).isEqualTo(before.path("title").asText());
    assertThat(after.path("status").asText()).isEqualTo("open");
    Api.Response third = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Who lights the lamp?"));
    assertThat(third.status()).as(third.body()).isEqualTo(200);
    JsonNode continued = api.session(sessionId);
    assertThat(continued.path("messages")).hasSize(6);
    for (int i = 0; i < 4; i++) {
      assertThat(continued.path("messages").get(i)).isEqualTo(before.path("messages").get(i));
    }
    assertThat(continued.path("messages").get(4).path("content").asText()).isEqualTo("Who lights the lamp?");
    assertThat(continued.path("messages").get(5).path("role").asText()).isEqualTo("assistant");
    assertThat(continued.path("narrative_state").path("completed_turns").asInt()).isEqualTo(3);
    assertThat(continued.path("narrative_state").path("cited_sources").toString()).contains("harbour.md");
  }

  @Test
  void aTurnLongerThanThePassivationTimeoutRunsToItsEndWithTheSessionInMemory() throws Exception {
    Api api = app().api();
    String sessionId = api.openSession();
    app().mock().reconfigure(SLOW_TURN);
    try (SseClient stream = api.streamTurn(sessionId, Api.turn("Tell me the long version"))) {
      long started = System.nanoTime();
      Duration pastTimeout = PASSIVATION.plusMillis(1500);
      List<SseEvent> early = stream.readUntil(
          event -> System.nanoTime() - started > pastTimeout.toNanos() || event.terminal(), PATIENCE);
      assertThat(early.getLast().terminal()).as("the turn was still running %s after it started", pastTimeout).isFalse();
      assertThat(live(sessionId)).as("in memory while its turn runs past the passivation timeout").isTrue();

      List<SseEvent> rest = stream.readToEnd(PATIENCE);

      assertThat(rest.getLast().event()).isEqualTo("turn.completed");
      assertThat(java.util.stream.Stream.concat(early.stream(), rest.stream()).filter(e -> e.event().equals("token")))
          .hasSize(SLOW_TURN.tokens());
    } finally {
      app().mock().reconfigure(TestColloquy.fastMock());
    }
    JsonNode session = api.session(sessionId);
    assertThat(session.path("messages")).hasSize(2);
    assertThat(session.path("messages").get(1).path("role").asText()).isEqualTo("assistant");
    assertThat(session.path("running_turn_id").isNull()).as(session.toString()).isTrue();
    await("session " + sessionId + " passivated once its turn is over", () -> !live(sessionId));
  }

  boolean live(String sessionId) {
    return LiveSessions.contains(app().colloquy().system(), sessionId);
  }

  long snapshotRows(String sessionId) throws Exception {
    try (Connection connection = app().colloquy().database().dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement("SELECT count(*) FROM snapshot WHERE persistence_id = ?")) {
      query.setString(1, ChatSession.persistenceId(sessionId).id());
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited %s for %s", PATIENCE, what).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
