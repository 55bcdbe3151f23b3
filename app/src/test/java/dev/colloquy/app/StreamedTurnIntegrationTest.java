package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.mockllm.MockLlmSettings;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A turn end to end: streamed over SSE, as JSON, resumed after it ended, and made idempotent. */
class StreamedTurnIntegrationTest {

  /** The agent's routing call, billed with the turn: the mock fills its one-word answer up to its 8 tokens. */
  static final int ROUTING_TOKENS = 8;

  private static final Duration TURN_TIMEOUT = Duration.ofSeconds(30);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  @BeforeEach
  void fastModel() {
    app.mock().reconfigure(TestColloquy.fastMock());
  }

  @Test
  void aTurnStreamsItsEventsInOrderAndIsKeptInTheSession() throws Exception {
    String sessionId = app.api().openSession();

    List<SseEvent> events;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Tell me a story"))) {
      events = stream.readToEnd(TURN_TIMEOUT);
    }

    String expectedText = app.mock().settings().text(app.mock().settings().tokens());
    assertThat(names(events)).containsExactlyElementsOf(expectedNames(app.mock().settings().tokens()));
    assertThat(ids(events)).containsExactlyElementsOf(oneTo(events.size()));
    String turnId = events.getFirst().text("turn_id");
    String traceId = events.getFirst().text("trace_id");
    assertThat(turnId).isNotBlank();
    assertThat(traceId).isNotBlank();
    for (SseEvent event : events) {
      assertThat(event.text("session_id")).as("session_id of %s", event).isEqualTo(sessionId);
      assertThat(event.text("turn_id")).as("turn_id of %s", event).isEqualTo(turnId);
      assertThat(event.text("trace_id")).as("trace_id of %s", event).isEqualTo(traceId);
    }
    SseEvent completed = events.getLast();
    assertThat(tokenText(events)).isEqualTo(expectedText);
    assertThat(completed.text("text")).isEqualTo(expectedText);
    SseEvent run = events.get(events.size() - 2);
    assertThat(run.json().path("usage").path("completion_tokens").asInt()).isEqualTo(app.mock().settings().tokens());
    assertThat(completed.json().path("usage").path("completion_tokens").asInt())
        .as("the turn's usage is the answer's and the routing call's").isEqualTo(app.mock().settings().tokens() + ROUTING_TOKENS);
    assertThat(run.text("model")).isEqualTo(TestColloquy.MODEL);
    assertThat(run.text("text")).isEqualTo(expectedText);
    assertThat(events.getFirst().json().path("run_ids").get(0).asText()).isEqualTo(run.text("run_id"));

    JsonNode messages = app.api().session(sessionId).path("messages");
    assertThat(messages).hasSize(2);
    assertThat(messages.get(0).path("role").asText()).isEqualTo("user");
    assertThat(messages.get(0).path("content").asText()).isEqualTo("Tell me a story");
    assertThat(messages.get(0).path("turn_id").asText()).isEqualTo(turnId);
    assertThat(messages.get(1).path("role").asText()).isEqualTo("assistant");
    assertThat(messages.get(1).path("content").asText()).isEqualTo(expectedText);
    assertThat(messages.get(1).path("turn_id").asText()).isEqualTo(turnId);
    assertThat(messages.get(1).path("message_id").asText()).isEqualTo(completed.text("message_id"));
  }

  @Test
  void withoutAnEventStreamTheTurnAnswersJsonOnceComplete() throws Exception {
    String sessionId = app.api().openSession();

    Api.Response response = app.api().post("/v1/sessions/" + sessionId + "/turns", Api.turn("Answer in JSON"));

    assertThat(response.status()).as(response.body()).isEqualTo(200);
    assertThat(response.contentType()).startsWith("application/json");
    JsonNode turn = response.json();
    String expectedText = app.mock().settings().text(app.mock().settings().tokens());
    assertThat(turn.path("session_id").asText()).isEqualTo(sessionId);
    assertThat(turn.path("turn_id").asText()).isNotBlank();
    assertThat(turn.path("status").asText()).isEqualTo("completed");
    assertThat(turn.path("text").asText()).isEqualTo(expectedText);
    assertThat(turn.path("usage").path("completion_tokens").asInt())
        .isEqualTo(app.mock().settings().tokens() + ROUTING_TOKENS);
    assertThat(turn.path("usage").path("total_tokens").asInt())
        .isEqualTo(turn.path("usage").path("prompt_tokens").asInt() + app.mock().settings().tokens() + ROUTING_TOKENS);
    assertThat(app.api().session(sessionId).path("messages")).hasSize(2);
  }

  @Test
  void resumingAFinishedTurnDeliversExactlyTheEventsAfterTheLastOneSeen() throws Exception {
    String sessionId = app.api().openSession();
    List<SseEvent> live;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Resume me"))) {
      live = stream.readToEnd(TURN_TIMEOUT);
    }
    String turnId = live.getFirst().text("turn_id");
    int lastSeen = 5;

    List<SseEvent> resumed;
    try (SseClient stream = app.api().joinTurn(sessionId, turnId, (long) lastSeen)) {
      resumed = stream.readToEnd(TURN_TIMEOUT);
    }

    assertThat(ids(resumed)).containsExactlyElementsOf(LongStream.rangeClosed(lastSeen + 1, live.size()).boxed().toList());
    assertThat(names(resumed)).containsExactlyElementsOf(names(live.subList(lastSeen, live.size())));
    for (int i = 0; i < resumed.size(); i++) {
      SseEvent original = live.get(lastSeen + i);
      assertThat(resumed.get(i).json()).as("data of event %s", original.id()).isEqualTo(original.json());
    }
  }

  /**
   * An EventSource reconnects by itself when a stream closes, with the id of the terminal event as
   * Last-Event-ID. Nothing follows that id, so the server must end the stream at once (or answer 204
   * No Content, which tells an EventSource to stop reconnecting) instead of holding it open forever.
   */
  @Test
  void reconnectingAfterTheTerminalEventEndsAtOnce() throws Exception {
    String sessionId = app.api().openSession();
    List<SseEvent> live;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Finish, then let me reconnect"))) {
      live = stream.readToEnd(TURN_TIMEOUT);
    }
    String turnId = live.getFirst().text("turn_id");

    HttpResponse<InputStream> response = app.api().joinTurnResponse(sessionId, turnId, live.getLast().number());

    if (response.statusCode() == 204) {
      response.body().close();
      return;
    }
    assertThat(response.statusCode()).isEqualTo(200);
    try (SseClient stream = SseClient.of(response)) {
      assertThat(stream.readToEnd(Duration.ofSeconds(5))).isEmpty();
    }
  }

  @Test
  void theSameIdempotencyKeyTwiceGivesTheSameTurnAndNoSecond() throws Exception {
    String sessionId = app.api().openSession();
    String first;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turnWithKey("Only once", "key-1"))) {
      first = stream.readToEnd(TURN_TIMEOUT).getFirst().text("turn_id");
    }

    Api.Response again = app.api().post("/v1/sessions/" + sessionId + "/turns", Api.turnWithKey("Only once", "key-1"));

    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(again.json().path("turn_id").asText()).isEqualTo(first);
    JsonNode messages = app.api().session(sessionId).path("messages");
    assertThat(messages).hasSize(2);
    assertThat(messages.findValuesAsText("turn_id")).containsOnly(first);
  }

  @Test
  void tokenTextThatLooksLikeSseFramingCannotInjectEvents() throws Exception {
    MockLlmSettings hostile = TestColloquy.fastMock().withTokens(5).withTokenText("a\r\nevent: evil\r\ndata: x\n\n{i}\r");
    app.mock().reconfigure(hostile);
    String sessionId = app.api().openSession();

    List<SseEvent> events;
    List<String> unknownLines;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Say something nasty"))) {
      events = stream.readToEnd(TURN_TIMEOUT);
      unknownLines = stream.unknownLines();
    }

    assertThat(names(events)).containsExactlyElementsOf(expectedNames(5));
    assertThat(ids(events)).containsExactlyElementsOf(oneTo(events.size()));
    assertThat(unknownLines).isEmpty();
    assertThat(tokenText(events)).isEqualTo(hostile.text(5));
    assertThat(events.getLast().text("text")).isEqualTo(hostile.text(5));
  }

  /**
   * The messages of these tests are domain queries (the mock's routing answer does not parse, so the
   * offline rules route them), and with an empty knowledge base every such turn reports one gap before
   * the model's tokens.
   */
  static List<String> expectedNames(int tokens) {
    List<String> names = new ArrayList<>(List.of("turn.started", "intent", "retrieval", "gap"));
    for (int i = 0; i < tokens; i++) {
      names.add("token");
    }
    names.addAll(List.of("run.completed", "turn.completed"));
    return names;
  }

  static List<String> names(List<SseEvent> events) {
    return events.stream().map(SseEvent::event).toList();
  }

  static List<Long> ids(List<SseEvent> events) {
    return events.stream().map(SseEvent::number).toList();
  }

  static List<Long> oneTo(int n) {
    return LongStream.rangeClosed(1, n).boxed().toList();
  }

  static String tokenText(List<SseEvent> events) {
    return events.stream().filter(e -> e.event().equals("token")).map(e -> e.text("text")).collect(Collectors.joining());
  }
}
