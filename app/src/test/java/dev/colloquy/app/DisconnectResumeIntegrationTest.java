package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A client that loses its connection mid-turn resumes with Last-Event-ID and misses nothing. */
class DisconnectResumeIntegrationTest {

  /** About 3 s of tokens: long enough to drop the connection in the middle. */
  private static final MockLlmSettings MODEL = TestColloquy.fastMock().withTokens(60)
      .withDelays(Duration.ofMillis(50), Duration.ofMillis(50));

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of("colloquy.http.keep-alive", "200ms"));

  @BeforeEach
  void slowModel() {
    app.mock().reconfigure(MODEL);
  }

  @Test
  void aClientThatReconnectsWithLastEventIdGetsTheRestWithoutGapOrDuplicate() throws Exception {
    String sessionId = app.api().openSession();
    List<SseEvent> seen = new ArrayList<>();
    try (SseClient first = app.api().streamTurn(sessionId, Api.turn("A long story, please"))) {
      for (int tokens = 0; tokens < 5; ) {
        SseEvent event = first.next(Duration.ofSeconds(30));
        seen.add(event);
        tokens += event.event().equals("token") ? 1 : 0;
      }
    }
    String turnId = seen.getFirst().text("turn_id");
    long lastSeen = seen.getLast().number();

    List<SseEvent> rest;
    try (SseClient resumed = app.api().joinTurn(sessionId, turnId, lastSeen)) {
      rest = resumed.readToEnd(Duration.ofSeconds(30));
    }

    List<SseEvent> all = new ArrayList<>(seen);
    all.addAll(rest);
    assertThat(StreamedTurnIntegrationTest.ids(all))
        .containsExactlyElementsOf(LongStream.rangeClosed(1, all.size()).boxed().toList());
    assertThat(StreamedTurnIntegrationTest.names(all))
        .containsExactlyElementsOf(StreamedTurnIntegrationTest.expectedNames(MODEL.tokens()));
    assertThat(rest.getFirst().text("turn_id")).isEqualTo(turnId);
    String expectedText = MODEL.text(MODEL.tokens());
    assertThat(StreamedTurnIntegrationTest.tokenText(all)).isEqualTo(expectedText);
    assertThat(rest.getLast().event()).isEqualTo("turn.completed");
    assertThat(rest.getLast().text("text")).isEqualTo(expectedText);
  }

  @Test
  void aRetryWithTheSameIdempotencyKeyWhileTheTurnRunsJoinsItInsteadOfStartingAnother() throws Exception {
    String sessionId = app.api().openSession();
    String body = Api.turnWithKey("Once, even if I retry", "retry-1");
    try (SseClient first = app.api().streamTurn(sessionId, body)) {
      List<SseEvent> firstSeen = first.readUntil(event -> event.event().equals("token"), Duration.ofSeconds(30));
      String turnId = firstSeen.getFirst().text("turn_id");

      List<SseEvent> retried;
      try (SseClient retry = app.api().streamTurn(sessionId, body)) {
        retried = retry.readToEnd(Duration.ofSeconds(30));
      }
      firstSeen.addAll(first.readToEnd(Duration.ofSeconds(30)));

      assertThat(retried).allSatisfy(event -> assertThat(event.text("turn_id")).isEqualTo(turnId));
      assertThat(StreamedTurnIntegrationTest.ids(retried))
          .containsExactlyElementsOf(StreamedTurnIntegrationTest.oneTo(retried.size()));
      assertThat(StreamedTurnIntegrationTest.names(retried)).isEqualTo(StreamedTurnIntegrationTest.names(firstSeen));
      assertThat(StreamedTurnIntegrationTest.tokenText(retried)).isEqualTo(MODEL.text(MODEL.tokens()));
      assertThat(StreamedTurnIntegrationTest.tokenText(firstSeen)).isEqualTo(MODEL.text(MODEL.tokens()));
    }
    assertThat(app.api().session(sessionId).path("messages")).hasSize(2);
  }

  @Test
  void aQuietStreamCarriesKeepAliveComments() throws Exception {
    app.mock().reconfigure(MODEL.withTokens(3).withTimeToFirstToken(Duration.ofMillis(1500)));
    String sessionId = app.api().openSession();

    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Take your time"))) {
      List<SseEvent> events = stream.readToEnd(Duration.ofSeconds(30));

      assertThat(events.getLast().event()).isEqualTo("turn.completed");
      assertThat(stream.comments()).isNotEmpty().containsOnly("keep-alive");
    }
  }

  @Test
  void aLastEventIdAheadOfARunningTurnWaitsForTheFramesAfterIt() throws Exception {
    String sessionId = app.api().openSession();
    try (SseClient first = app.api().streamTurn(sessionId, Api.turn("Another long story"))) {
      SseEvent started = first.next(Duration.ofSeconds(30));
      String turnId = started.text("turn_id");
      long ahead = 20;

      List<SseEvent> rest;
      try (SseClient resumed = app.api().joinTurn(sessionId, turnId, ahead)) {
        rest = resumed.readToEnd(Duration.ofSeconds(30));
      }
      List<SseEvent> all = first.readToEnd(Duration.ofSeconds(30));

      assertThat(rest.getFirst().number()).isEqualTo(ahead + 1);
      assertThat(StreamedTurnIntegrationTest.ids(rest))
          .containsExactlyElementsOf(LongStream.rangeClosed(ahead + 1, all.getLast().number()).boxed().toList());
      assertThat(rest.getLast().event()).isEqualTo("turn.completed");

      Api.Response beyondTheEnd = app.api().send("GET", "/v1/sessions/" + sessionId + "/turns/" + turnId + "/events",
          null, "Accept", "text/event-stream", "Last-Event-ID", String.valueOf(all.getLast().number() + 100));
      assertThat(beyondTheEnd.status()).isEqualTo(204);
    }
  }
}
