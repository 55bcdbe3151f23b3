package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.LeftoverPostmaster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} in the middle of a streamed turn, for real: the application runs as a child JVM
 * on the default storage (embedded PostgreSQL, which outlives its killed parent) and is started
 * again on the same data directory.
 */
class CrashRecoveryIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String KEY = "crash-key-1";

  @RegisterExtension
  final ChildColloquies children = new ChildColloquies();

  @TempDir
  Path dataDir;

  private static MockLlmServer mock;

  @BeforeAll
  static void startMock() {
    mock = TestColloquy.startMock();
  }

  @AfterAll
  static void stopMock() {
    mock.close();
  }

  @Test
  void afterSigkillMidTurnCompletedTurnsAreIntactAndTheCutTurnIsRecordedInterruptedOnce() throws Exception {
    ChildColloquy first = children.start(dataDir, mock, Map.of());
    Api api = first.api();
    JsonNode story = api.ingest("story.md", ("# The Story\n\n## The hero\n\nThe hero is Ada, a lighthouse keeper.\n\n"
        + "## The villain\n\nThe villain is the storm that never ends.\n").getBytes(StandardCharsets.UTF_8));
    assertThat(story.path("status").asText()).isEqualTo("ready");
    String sessionId = api.openSession();
    for (String message : List.of("Who is the hero?", "And the villain?")) {
      Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn(message));
      assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    }
    JsonNode before = api.session(sessionId);
    assertThat(before.path("messages").get(1).path("citations").findValuesAsText("source")).contains("story.md");
    mock.reconfigure(TestColloquy.slowMock());
    String turnId;
    long lastSeen;
    try (SseClient stream = api.streamTurn(sessionId, Api.turnWithKey("Still talking when the power goes", KEY))) {
      List<SseEvent> seen = stream.readUntil(event -> event.event().equals("token") && event.number() >= 5, WAIT);
      turnId = seen.getFirst().text("turn_id");
      lastSeen = seen.getLast().number();

      first.kill();
    }
    Path pgData = dataDir.resolve("postgres");
    ProcessHandle orphan = LeftoverPostmaster.running(pgData)
        .orElseThrow(() -> new AssertionError("the killed node's PostgreSQL should still run on " + pgData));
    mock.reconfigure(TestColloquy.fastMock());

    ChildColloquy second = children.start(dataDir, mock, Map.of());
    assertThat(orphan.isAlive()).as("the orphaned PostgreSQL was stopped by the restart").isFalse();
    api = second.api();

    List<SseEvent> rest;
    try (SseClient resumed = api.joinTurn(sessionId, turnId, lastSeen)) {
      rest = resumed.readToEnd(WAIT);
    }
    assertThat(rest).hasSize(1);
    assertThat(rest.getFirst().event()).isEqualTo("turn.failed");
    assertThat(rest.getFirst().text("code")).isEqualTo("INTERRUPTED");
    assertThat(rest.getFirst().number()).isEqualTo(TurnFrame.LOST_LAYOUT_TERMINAL_ID);
    assertThat(api.joinTurnResponse(sessionId, turnId, TurnFrame.LOST_LAYOUT_TERMINAL_ID).statusCode())
        .as("resuming after the terminal frame: nothing follows, so an EventSource stops reconnecting").isEqualTo(204);

    JsonNode after = api.session(sessionId);
    List<JsonNode> messages = new ArrayList<>();
    after.path("messages").forEach(messages::add);
    assertThat(messages).hasSize(before.path("messages").size() + 1);
    JsonNode completedBefore = Api.JSON.valueToTree(messages.subList(0, 4));
    assertThat(completedBefore).isEqualTo(before.path("messages"));
    assertThat(messages.getLast().path("turn_id").asText()).isEqualTo(turnId);
    assertThat(after.path("narrative_state")).isEqualTo(before.path("narrative_state"));
    assertThat(after.path("running_turn_id").isNull()).isTrue();

    Api.Response retry = api.post("/v1/sessions/" + sessionId + "/turns",
        Api.turnWithKey("Still talking when the power goes", KEY));
    assertThat(retry.status()).as(retry.body()).isEqualTo(502);
    assertThat(retry.json().path("error").path("code").asText()).isEqualTo("INTERRUPTED");
    assertThat(api.session(sessionId).path("messages")).hasSize(messages.size());

    JsonNode journal = api.get("/v1/sessions/" + sessionId + "/journal").json();
    List<JsonNode> events = new ArrayList<>();
    journal.path("events").forEach(events::add);
    assertThat(events.stream().filter(e -> e.path("type").asText().equals("TurnAccepted"))
        .filter(e -> e.path("event").path("idempotency_key").asText().equals(KEY))).hasSize(1);
    List<JsonNode> ends = events.stream()
        .filter(e -> e.path("event").path("turn_id").asText().equals(turnId))
        .filter(e -> !e.path("type").asText().equals("TurnAccepted"))
        .filter(e -> !e.path("type").asText().equals("TurnCheckpointed")).toList();
    assertThat(ends).hasSize(1);
    assertThat(ends.getFirst().path("type").asText()).isEqualTo("TurnFailed");
    assertThat(ends.getFirst().path("event").path("code").asText()).isEqualTo("INTERRUPTED");

    List<Long> stored = storedSequenceNumbers(pgData, "ChatSession|" + sessionId);
    assertThat(stored).containsExactlyElementsOf(LongStream.rangeClosed(1, stored.size()).boxed().toList());
    assertThat(stored).hasSize(events.size());
  }

  /** The journal rows of a persistence id, read from the table itself through the port the running server wrote. */
  private static List<Long> storedSequenceNumbers(Path pgData, String persistenceId) throws Exception {
    List<String> pidFile = Files.readAllLines(pgData.resolve("postmaster.pid"));
    String url = "jdbc:postgresql://localhost:" + pidFile.get(3).strip() + "/postgres";
    List<Long> sequenceNumbers = new ArrayList<>();
    String password = Files.readString(pgData.resolveSibling(Database.PASSWORD_FILE)).strip();
    try (Connection connection = DriverManager.getConnection(url, "postgres", password);
        PreparedStatement query = connection.prepareStatement(
            "SELECT sequence_number FROM event_journal WHERE persistence_id = ? ORDER BY ordering")) {
      query.setString(1, persistenceId);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          sequenceNumbers.add(rows.getLong(1));
        }
      }
    }
    return sequenceNumbers;
  }
}
