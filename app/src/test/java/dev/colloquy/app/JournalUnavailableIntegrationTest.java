package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.PlannedPort;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's database stops for real while the node runs, and comes back. While it is down the
 * node is not ready and refuses turns at once, sending nothing to a model; a turn whose outcome could
 * not be journaled still ends its stream, with the code the journal records once it is back; and
 * then everything works again.
 */
class JournalUnavailableIntegrationTest {

  @Test
  void turnsAreRefusedWhileTheDatabaseIsDownAndWorkWhenItIsBack(@TempDir Path dataDir, @TempDir Path pgDir)
      throws Exception {
    int port = PlannedPort.forAnotherServer();
    EmbeddedPostgres database = postgres(port, pgDir);
    // 200 tokens 50 ms apart: the turn is still streaming when the database has gone and is seen gone.
    try (MockLlmServer mock = MockLlmServer.start(
            TestColloquy.fastMock().withTokens(200).withDelays(Duration.ofMillis(20), Duration.ofMillis(50)),
            "127.0.0.1", 0);
        Colloquy colloquy = TestColloquy.start(mock, dataDir, Map.of(
            "colloquy.storage.db.url", "jdbc:postgresql://localhost:" + port + "/postgres",
            "colloquy.storage.db.user", "postgres",
            "colloquy.storage.db.password", "postgres"))) {
      Api api = TestColloquy.api(colloquy);
      // Issued while the database is up, first used while it is down: the node has never seen it.
      Api unseenKey = TestColloquy.api(colloquy);
      String sessionId = api.openSession();

      String turnId;
      SseEvent terminal;
      try (SseClient stream = api.streamTurn(sessionId, Api.turn("Tell me about tides"))) {
        List<SseEvent> started = stream.readUntil(event -> event.event().equals("token"), Duration.ofSeconds(20));
        turnId = started.getFirst().text("turn_id");
        database.close();
        Api.Response ready = awaitStatus(api, "/ready", 503, Duration.ofSeconds(5));
        assertThat(ready.json().path("checks").path("journal").asBoolean()).isFalse();
        // A cancel needs no journal to stop the model call that is still streaming (and costing). Only when
        // a checkpoint write began in the second before the node knew the database was gone does the
        // session hold the cancel until that write fails (503, retryable): the turn then stops with it.
        long cancelledBefore = mock.stats().streamsCancelled();
        Api.Response cancel = api.post("/v1/sessions/" + sessionId + "/turns/" + turnId + "/cancel", "{}");
        assertThat(cancel.status()).as(cancel.body()).isIn(202, 503);
        if (cancel.status() == 202) {
          mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
        List<SseEvent> rest = stream.readToEnd(Duration.ofSeconds(30));
        terminal = rest.getLast();
      }
      // The cancel could not be journaled either: the turn ends as interrupted, and is recorded so.
      assertThat(terminal.event()).isEqualTo("turn.failed");
      assertThat(terminal.text("code")).isEqualTo("INTERRUPTED");

      long requestsBefore = mock.stats().requests();
      long started = System.nanoTime();
      Api.Response refused = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Are you there?"),
          "Accept", "text/event-stream");
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.json().path("error").path("code").asText()).isEqualTo("JOURNAL_UNAVAILABLE");
      assertThat(refused.json().path("error").path("trace_id").asText()).hasSize(32);
      assertThat(took).isLessThan(Duration.ofSeconds(1));
      Api.Response opening = api.post("/v1/sessions", "{}");
      assertThat(opening.status()).isEqualTo(503);
      assertThat(mock.stats().requests()).isEqualTo(requestsBefore);
      Credentialed.Reply unchecked = Credentialed.send(colloquy.baseUrl(), "GET", "/v1/sessions", null,
          "Authorization", "Bearer " + unseenKey.apiKey());
      assertThat(unchecked.status()).as(unchecked.body()).isEqualTo(503);
      Credentialed.assertErrorBody(unchecked, "AUTHENTICATION_UNAVAILABLE", "a key never seen, the key store down");
      assertThat(unchecked.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(new PrometheusText(api.get("/metrics").body())
          .value("colloquy_errors_total", "source", "http", "code", "JOURNAL_UNAVAILABLE")).isEqualTo(2);

      database = postgres(port, pgDir);
      try {
        awaitStatus(api, "/ready", 200, Duration.ofSeconds(10));
        // The session recovers on its next command and records the cut turn as the client saw it.
        JsonNode failed = awaitTurnFailed(api, sessionId, turnId, Duration.ofSeconds(60));
        assertThat(failed.path("code").asText()).isEqualTo(terminal.text("code"));

        Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("And now?"));
        assertThat(turn.status()).as(turn.body()).isEqualTo(200);
        assertThat(turn.json().path("status").asText()).isEqualTo("completed");
        // Two model calls: one routes the message (its answer does not parse: the offline rules route), one answers it.
        assertThat(mock.stats().requests()).isEqualTo(requestsBefore + 2);
      } finally {
        colloquy.close();
        database.close();
      }
    }
  }

  private static EmbeddedPostgres postgres(int port, Path dataDir) throws IOException {
    return EmbeddedPostgres.builder().setPort(port).setDataDirectory(dataDir).setCleanDataDirectory(false).start();
  }

  private static Api.Response awaitStatus(Api api, String path, int status, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Api.Response response = api.get(path);
    while (response.status() != status) {
      assertThat(System.nanoTime()).as(path + " never answered " + status + "; last: " + response.body())
          .isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      response = api.get(path);
    }
    return response;
  }

  /** The TurnFailed event of the turn in the journal, once the recovered session has written it. */
  private static JsonNode awaitTurnFailed(Api api, String sessionId, String turnId, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      // Any command wakes the session; its recovery records the turn that has no outcome.
      Api.Response session = api.get("/v1/sessions/" + sessionId);
      Api.Response journal = api.get("/v1/sessions/" + sessionId + "/journal");
      if (session.status() == 200 && journal.status() == 200) {
        for (JsonNode entry : journal.json().path("events")) {
          if (entry.path("type").asText().equals("TurnFailed")
              && entry.path("event").path("turn_id").asText().equals(turnId)) {
            return entry.path("event");
          }
        }
      }
      assertThat(System.nanoTime()).as("turn " + turnId + " never recorded as failed; last: " + journal.body())
          .isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }
}
