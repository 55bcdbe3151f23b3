package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.mockllm.MockLlmServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM, for real, to the application running as a child JVM: the node refuses new turns, lets
 * the running ones finish within the drain timeout, interrupts those that take longer, and exits 0.
 */
class GracefulShutdownIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

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
  void aTurnThatEndsWithinTheDrainCompletesWhileNewTurnsAreRefusedAndTheProcessExitsZero() throws Exception {
    // About 3 s of tokens: well within the drain, well beyond the moment the signal arrives.
    mock.reconfigure(TestColloquy.fastMock().withTokens(60).withDelays(Duration.ofMillis(50), Duration.ofMillis(50)));
    ChildColloquy node = children.start(dataDir, mock, Map.of("COLLOQUY_DRAIN_TIMEOUT", "30s"));
    Api api = node.api();
    String running = api.openSession();
    String other = api.openSession();
    try (SseClient stream = api.streamTurn(running, Api.turn("Tell me everything"))) {
      List<SseEvent> events = new ArrayList<>(stream.readUntil(event -> event.event().equals("token"), WAIT));

      long signalled = System.nanoTime();
      node.terminate();
      JsonNode notReady = awaitNotReady(api);
      Api.Response refused = api.post("/v1/sessions/" + other + "/turns", Api.turn("One more?"));
      events.addAll(stream.readToEnd(WAIT));
      Duration streamedAfterSignal = Duration.ofNanos(System.nanoTime() - signalled);

      assertThat(notReady.path("checks").path("accepting_turns").asBoolean()).isFalse();
      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.json().path("error").path("code").asText()).isEqualTo("SHUTTING_DOWN");
      assertThat(refused.json().path("error").path("trace_id").asText()).isNotBlank();
      assertThat(streamedAfterSignal).as("the turn kept streaming during the drain").isGreaterThan(Duration.ofSeconds(2));
      assertThat(events.getLast().event()).isEqualTo("turn.completed");
      assertThat(events.getLast().text("text")).isEqualTo(mock.settings().text(60));
      assertThat(String.join("", events.stream().filter(event -> event.event().equals("token"))
          .map(event -> event.text("text")).toList())).as("every token reached the client").isEqualTo(mock.settings().text(60));
    }
    assertThat(node.exitCode(WAIT)).isZero();
  }

  @Test
  void aTurnLongerThanTheDrainEndsInterruptedForItsClientAndInTheJournal() throws Exception {
    mock.reconfigure(TestColloquy.slowMock());
    ChildColloquy node = children.start(dataDir, mock, Map.of("COLLOQUY_DRAIN_TIMEOUT", "2s"));
    Api api = node.api();
    String sessionId = api.openSession();
    long cancelledBefore = mock.stats().streamsCancelled();
    String turnId;
    List<SseEvent> events;
    try (SseClient stream = api.streamTurn(sessionId, Api.turn("Tell me a very long story"))) {
      List<SseEvent> seen = new ArrayList<>(stream.readUntil(event -> event.event().equals("token"), WAIT));
      turnId = seen.getFirst().text("turn_id");

      long signalled = System.nanoTime();
      node.terminate();
      seen.addAll(stream.readToEnd(WAIT));
      events = seen;
      assertThat(Duration.ofNanos(System.nanoTime() - signalled)).as("the turn ran until the drain timeout")
          .isGreaterThanOrEqualTo(Duration.ofMillis(1900));
    }
    SseEvent terminal = events.getLast();
    assertThat(terminal.event()).isEqualTo("turn.failed");
    assertThat(terminal.text("code")).isEqualTo("INTERRUPTED");
    assertThat(events.stream().filter(SseEvent::terminal)).hasSize(1);
    assertThat(node.exitCode(WAIT)).isZero();
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);

    mock.reconfigure(TestColloquy.fastMock());
    ChildColloquy restarted = children.start(dataDir, mock, Map.of());
    api = restarted.api();
    try (SseClient resumed = api.joinTurn(sessionId, turnId, terminal.number() - 1)) {
      List<SseEvent> replayed = resumed.readToEnd(WAIT);
      assertThat(replayed).hasSize(1);
      assertThat(replayed.getFirst().event()).isEqualTo("turn.failed");
      assertThat(replayed.getFirst().text("code")).isEqualTo("INTERRUPTED");
      assertThat(replayed.getFirst().number()).isEqualTo(terminal.number());
    }
    JsonNode journal = api.get("/v1/sessions/" + sessionId + "/journal").json();
    List<String> ends = new ArrayList<>();
    journal.path("events").forEach(event -> {
      if (event.path("event").path("turn_id").asText().equals(turnId) && !event.path("type").asText().equals("TurnAccepted")
          && !event.path("type").asText().equals("TurnCheckpointed")) {
        ends.add(event.path("type").asText() + " " + event.path("event").path("code").asText());
      }
    });
    assertThat(ends).containsExactly("TurnFailed INTERRUPTED");
    Api.Response next = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Are you back?"));
    assertThat(next.status()).as(next.body()).isEqualTo(200);
  }

  private static JsonNode awaitNotReady(Api api) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      Api.Response ready = api.get("/ready");
      if (ready.status() == 503) {
        return ready.json();
      }
      assertThat(System.nanoTime()).as("/ready still answers " + ready.status() + " after SIGTERM").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }
}
