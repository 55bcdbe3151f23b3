package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.mockllm.MockLlmServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session whose idle deadline passes while the whole server is stopped is closed for idleness
 * by the server that starts next on the same data: nothing in memory survived, the read side did.
 */
class IdleCloseAcrossRestartIntegrationTest {

  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(3);

  @TempDir
  Path dataDir;

  @Test
  void aSessionThatWentIdleWhileTheServerWasDownIsClosedAfterTheRestart() throws Exception {
    try (MockLlmServer mock = TestColloquy.startMock()) {
      String sessionId;
      JsonNode turn;
      Instant lastActivity;
      // The first server's reaper never gets to look, so only the restarted server can close the session.
      try (Colloquy first = TestColloquy.start(mock, dataDir, Map.of(
          "colloquy.session.idle-timeout", IDLE_TIMEOUT.toSeconds() + "s",
          "colloquy.session.idle-check-interval", "1h"))) {
        Api api = TestColloquy.api(first);
        sessionId = api.openSession();
        Api.Response reply = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Goodnight"));
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        turn = reply.json();
        lastActivity = Instant.now();
        ReadTables tables = new ReadTables(first.database().dataSource());
        ReadTables.await("the turn is in the read side", Duration.ofSeconds(20),
            () -> Integer.valueOf(1).equals(tables.session(sessionId).get("turn_count")));
        assertThat(api.session(sessionId).path("status").asText()).isEqualTo("open");
      }
      Duration downFor = Duration.between(Instant.now(), lastActivity.plus(IDLE_TIMEOUT));
      if (downFor.isPositive()) {
        // The deadline has to pass while no server runs.
        LockSupport.parkNanos(downFor.toNanos());
      }

      try (Colloquy second = TestColloquy.start(mock, dataDir, Map.of(
          "colloquy.session.idle-timeout", IDLE_TIMEOUT.toSeconds() + "s",
          "colloquy.session.idle-check-interval", "500ms"))) {
        Api api = TestColloquy.api(second);

        ReadTables.await("the restarted server closes the idle session", Duration.ofSeconds(30),
            () -> api.session(sessionId).path("status").asText().equals("closed"));

        assertThat(api.session(sessionId).path("close_reason").asText()).isEqualTo("idle");
        IdleCloseAssertions.closedForIdleness(api, second, sessionId, turn);
        assertThat(new ReadTables(second.database().dataSource()).session(sessionId)).containsEntry("turn_count", 1);
        Api.Response refused = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Good morning"));
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().at("/error/code").asText()).isEqualTo("SESSION_CLOSED");
        assertThat(api.session(sessionId).path("messages")).hasSize(2);
      }
    }
  }
}
