package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.turn.Transcript;
import dev.colloquy.mockllm.MockLlmSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The largest things the API allows cross between two nodes whole (Artery drops a message beyond its
 * frame size): a session opened with the largest persona and metadata, a turn whose answer is just
 * under the answer limit streamed and then read back through the node that does not host the session.
 */
class TwoNodeLargeRepliesIntegrationTest {

  /** 32 tokens of about 62 KiB: an answer just under the 2 MiB limit, each frame that ends a run or turn carrying all of it. */
  private static final MockLlmSettings MODEL = TestColloquy.fastMock().withTokens(32)
      .withTokenText("z".repeat(62 * 1024) + "{i} ").withDelays(Duration.ZERO, Duration.ZERO);
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Models that answer as the mock does, for turns that fan out. */
  private static final List<String> MODELS = List.of("mock", "second", "third");

  @RegisterExtension
  static final RunningCluster cluster = RunningCluster.of2(MODEL,
      Map.of("colloquy.llm.extra-models", List.of(TestColloquy.BROKEN_MODEL, "second", "third")));

  @Test
  void theLargestSessionAndAnswerCrossNodesWhole() throws Exception {
    String answer = MODEL.text(MODEL.tokens());
    assertThat((long) answer.getBytes(StandardCharsets.UTF_8).length)
        .isGreaterThan(OpenAiChatModel.MAX_ANSWER_BYTES - 100_000).isLessThan(OpenAiChatModel.MAX_ANSWER_BYTES);
    String persona = "€".repeat(8_000);
    ObjectNode metadata = Api.JSON.createObjectNode();
    metadata.putArray("notes").add("ü".repeat(7_000));
    Api api = cluster.api(0);
    String sessionId = openOnTheOtherNode(api, persona, metadata);

    List<SseEvent> live;
    try (SseClient stream = api.streamTurn(sessionId, Api.turn("Tell me everything"))) {
      live = stream.readToEnd(WAIT);
    }
    assertThat(live.getLast().event()).isEqualTo("turn.completed");
    assertThat(live.getLast().text("text")).isEqualTo(answer);
    assertThat(live.stream().filter(event -> event.event().equals("run.completed")).findFirst().orElseThrow()
        .text("text")).isEqualTo(answer);

    JsonNode session = api.session(sessionId);
    assertThat(session.path("persona").asText()).isEqualTo(persona);
    assertThat(session.path("metadata")).isEqualTo(metadata);
    assertThat(session.path("messages")).as("the newest turn whole, its answer carried once")
        .extracting(m -> m.path("content").asText()).containsExactly("Tell me everything", answer);
    assertThat(session.path("next_before").isNull()).isTrue();

    Api.Response json = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Once more, as JSON"));
    assertThat(json.status()).as("the JSON answer").isEqualTo(200);
    assertThat(json.json().path("text").asText()).isEqualTo(answer);
    assertThat(cluster.hostedSessions(1)).as("the session stayed on the other node").contains(sessionId);
  }

  /**
   * Turns whose answers pass the limit fail keeping the 2 MiB they streamed, which every view of the
   * session carries in its turns: a page holds as many of them as its budget allows, so the session,
   * its support transcript and its fan-out conversation still cross nodes (three such turns would
   * not fit one frame); the transcript, which has no paging, gathers the pages one after another.
   */
  @Test
  void aSessionOfAnswersCutAtTheLimitReadsBackAPageAcrossNodesInEveryDialect() throws Exception {
    Api api = cluster.api(0);
    String sessionId = openOnTheOtherNode(api, "A plain persona", Api.JSON.createObjectNode());
    cluster.mock().reconfigure(MODEL.withTokens(40));
    try {
      for (int turn = 1; turn <= 3; turn++) {
        Api.Response cut = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Question " + turn));
        assertThat(cut.json().path("error").path("code").asText()).as(cut.body()).isEqualTo("ALL_RUNS_FAILED");
        assertThat(cut.json().path("error").path("message").asText()).contains("MODEL_ANSWER_TOO_LARGE");
      }
    } finally {
      cluster.mock().reconfigure(MODEL);
    }

    Api.Response session = api.get("/v1/sessions/" + sessionId);
    assertThat(session.status()).as(session.body()).isEqualTo(200);
    assertThat(session.json().path("messages")).extracting(m -> m.path("content").asText()).containsExactly("Question 3");
    Api.Response older = api.get("/v1/sessions/" + sessionId + "?before=" + session.json().path("next_before").asText());
    assertThat(older.json().path("messages")).extracting(m -> m.path("content").asText()).containsExactly("Question 2");

    Api.Response transcript = api.send("GET", "/v1/session/" + sessionId + "/transcript", null, "X-API-Key", api.apiKey());
    assertThat(transcript.status()).as(transcript.body()).isEqualTo(200);
    assertThat(transcript.json().path("messages")).extracting(m -> m.path("content").asText())
        .containsExactly("Question 1", "Question 2", "Question 3");

    Api.Response conversation = api.get("/v1/conversations/" + sessionId);
    assertThat(conversation.status()).as(conversation.body()).isEqualTo(200);
    JsonNode turns = conversation.json().path("turns");
    assertThat(turns).hasSize(1);
    JsonNode response = turns.get(0).path("agentResponses").get(0);
    assertThat(response.path("status").asText()).isEqualTo("failed");
    assertThat((long) response.path("text").asText().getBytes(StandardCharsets.UTF_8).length)
        .isGreaterThan(OpenAiChatModel.MAX_ANSWER_BYTES - 100_000).isLessThanOrEqualTo(OpenAiChatModel.MAX_ANSWER_BYTES);
    assertThat(cluster.hostedSessions(1)).as("the session stayed on the other node").contains(sessionId);
  }

  /**
   * A turn fanned out to three models that each answer about 0.9 MiB: together they would pass the
   * turn's answer budget, so the runs that would pass it end MODEL_ANSWER_TOO_LARGE keeping what they
   * streamed within it. The stream, the session and the fan-out conversation cross nodes whole, and
   * each carries every run's text once.
   */
  @Test
  void aFanOutTurnOfAnswersNearTheLimitEndsWithinTheTurnsBudgetAndCrossesNodesWhole() throws Exception {
    Api api = cluster.api(0);
    String sessionId = openOnTheOtherNode(api, "A plain persona", Api.JSON.createObjectNode());
    MockLlmSettings large = MODEL.withTokens(15);
    String answer = large.text(large.tokens());
    List<SseEvent> live;
    cluster.mock().reconfigure(large);
    try (SseClient stream = api.streamTurn(sessionId, Api.turn("Compare everything", MODELS))) {
      live = stream.readToEnd(WAIT);
    } finally {
      cluster.mock().reconfigure(MODEL);
    }

    Map<String, StringBuilder> streamed = new java.util.LinkedHashMap<>();
    live.stream().filter(event -> event.event().equals("token")).forEach(token ->
        streamed.computeIfAbsent(token.text("run_id"), run -> new StringBuilder()).append(token.text("text")));
    long total = streamed.values().stream().mapToLong(text -> utf8(text.toString())).sum();
    assertThat(total).as("every run's text together").isGreaterThan(Transcript.ANSWER_BUDGET_BYTES - 64 * 1024)
        .isLessThanOrEqualTo(Transcript.ANSWER_BUDGET_BYTES);
    List<SseEvent> cut = live.stream().filter(event -> event.event().equals("run.failed")).toList();
    assertThat(cut).as("runs past the budget").isNotEmpty().allSatisfy(failed -> {
      assertThat(failed.text("code")).isEqualTo("MODEL_ANSWER_TOO_LARGE");
      assertThat(failed.text("message")).contains(String.valueOf(Transcript.ANSWER_BUDGET_BYTES));
    });
    live.stream().filter(event -> event.event().equals("run.completed"))
        .forEach(completed -> assertThat(completed.text("text")).isEqualTo(answer));
    SseEvent terminal = live.getLast();
    if (cut.size() == MODELS.size()) {
      assertThat(terminal.event()).isEqualTo("turn.failed");
      assertThat(terminal.text("code")).isEqualTo("ALL_RUNS_FAILED");
    } else {
      assertThat(terminal.event()).isEqualTo("turn.completed");
      assertThat(terminal.text("text")).isEqualTo(answer);
    }

    Api.Response session = api.get("/v1/sessions/" + sessionId);
    assertThat(session.status()).as("the view crosses nodes").isEqualTo(200);
    assertThat(session.json().path("messages")).extracting(m -> m.path("role").asText() + ":" + m.path("content").asText())
        .contains("user:Compare everything")
        .hasSize(1 + MODELS.size() - cut.size());
    Api.Response conversation = api.get("/v1/conversations/" + sessionId);
    assertThat(conversation.status()).as("the conversation crosses nodes").isEqualTo(200);
    JsonNode turn = conversation.json().path("turns").get(0);
    assertThat(turn.path("prompt").asText()).isEqualTo("Compare everything");
    Map<String, String> shown = new java.util.LinkedHashMap<>();
    turn.path("agentResponses").forEach(response -> shown.put(response.path("runId").asText(), response.path("text").asText()));
    assertThat(shown).hasSize(MODELS.size());
    streamed.forEach((runId, text) -> assertThat(shown.get(runId)).as("run " + runId).isEqualTo(text.toString()));
    assertThat(cluster.hostedSessions(1)).as("the session stayed on the other node").contains(sessionId);
  }

  private static long utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }

  /** Opens sessions with client-chosen ids through node 0 until sharding places one on node 1. */
  private static String openOnTheOtherNode(Api api, String persona, JsonNode metadata) throws Exception {
    return cluster.sessionPlacedOn(1, () -> {
      String sessionId = UUID.randomUUID().toString();
      ObjectNode body = Api.JSON.createObjectNode().put("session_id", sessionId).put("persona", persona);
      body.set("metadata", metadata);
      Api.Response created = api.post("/v1/sessions", body.toString());
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      return sessionId;
    });
  }
}
