package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.turn.Transcript;
import dev.colloquy.mockllm.MockLlmSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fan-out dialect (seed 001) as its client uses it, over real HTTP against a node with several
 * providers: a conversation, a turn fanned out to its providers, the turn's stream by the turn's id
 * alone with the seed's events, resumed with {@code Last-Event-ID}, and the conversation with every
 * agent response, failed ones included; and each refusal in the canonical error shape.
 */
class FanOutDialectIntegrationTest {

  @RegisterExtension
  static final MockProviders app = MockProviders.start();

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final List<String> COMMON = List.of("type", "turnId", "runId", "provider", "model", "timestamp");

  @AfterAll
  static void closeClient() {
    HTTP.close();
  }

  private static String conversation(Api api) throws Exception {
    Api.Response created = api.post("/v1/conversations", "{}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().path("turns")).isEmpty();
    assertThat(created.json().path("status").asText()).isEqualTo("open");
    return created.json().path("id").asText();
  }

  private static JsonNode turn(Api api, String conversationId, String body) throws Exception {
    Api.Response created = api.post("/v1/conversations/" + conversationId + "/turns", body);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json();
  }

  private static HttpResponse<java.io.InputStream> streamResponse(String apiKey, String turnId, Long lastEventId)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.colloquy().baseUrl() + "/v1/turns/" + turnId + "/stream"))
        .header("Authorization", "Bearer " + apiKey).header("Accept", "text/event-stream").GET();
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId.toString());
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  private static List<SseEvent> stream(String turnId, Long lastEventId) throws Exception {
    HttpResponse<java.io.InputStream> response = streamResponse(app.api().apiKey(), turnId, lastEventId);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
    try (SseClient events = SseClient.of(response)) {
      return events.readToEnd(Duration.ofSeconds(30));
    }
  }

  /** The events an EventSource dispatches: a block with an id and no data moves its last id and dispatches none. */
  private static List<SseEvent> dispatched(List<SseEvent> events) {
    return events.stream().filter(event -> !event.data().isEmpty()).toList();
  }

  /**
   * Two runs that each answer 1.5 MiB would pass the turn's answer budget together: what passes it
   * ends as the seed's {@code run_error} with {@code MODEL_ANSWER_TOO_LARGE}, and the conversation
   * keeps what each run streamed, within the budget.
   */
  @Test
  void runsPastTheTurnsAnswerBudgetEndWithARunErrorAndKeepWhatTheyStreamed() throws Exception {
    String conversationId = conversation(app.api());
    MockLlmSettings alphaBefore = app.alpha().settings();
    MockLlmSettings betaBefore = app.beta().settings();
    String large = "w".repeat(100 * 1024) + "{i} ";
    app.alpha().reconfigure(alphaBefore.withTokens(15).withTokenText(large).withDelays(Duration.ZERO, Duration.ZERO));
    app.beta().reconfigure(betaBefore.withTokens(15).withTokenText(large).withDelays(Duration.ZERO, Duration.ZERO));
    List<SseEvent> events;
    try {
      String turnId = turn(app.api(), conversationId,
          "{\"prompt\": \"Compare at length\", \"models\": [\"alpha/mock\", \"beta/mock\"]}").path("turnId").asText();
      events = dispatched(stream(turnId, null));
    } finally {
      app.alpha().reconfigure(alphaBefore);
      app.beta().reconfigure(betaBefore);
    }

    java.util.Map<String, StringBuilder> streamed = new java.util.HashMap<>();
    events.stream().map(SseEvent::json).filter(e -> e.path("type").asText().equals("delta")).forEach(delta ->
        streamed.computeIfAbsent(delta.path("runId").asText(), run -> new StringBuilder()).append(delta.path("textDelta").asText()));
    long total = streamed.values().stream().mapToLong(text -> text.toString().getBytes(StandardCharsets.UTF_8).length).sum();
    assertThat(total).isLessThanOrEqualTo(Transcript.ANSWER_BUDGET_BYTES);
    List<JsonNode> errors = events.stream().map(SseEvent::json).filter(e -> e.path("type").asText().equals("run_error")).toList();
    assertThat(errors).isNotEmpty().allSatisfy(error -> {
      assertThat(error.path("errorCode").asText()).isEqualTo("MODEL_ANSWER_TOO_LARGE");
      assertThat(error.path("errorMessage").asText()).contains("together");
    });

    JsonNode responses = app.api().get("/v1/conversations/" + conversationId).json().path("turns").get(0).path("agentResponses");
    assertThat(responses).hasSize(2).allSatisfy(response -> assertThat(response.path("text").asText())
        .isEqualTo(streamed.getOrDefault(response.path("runId").asText(), new StringBuilder()).toString()));
    assertThat(responses.findValuesAsText("errorCode")).hasSize(errors.size()).containsOnly("MODEL_ANSWER_TOO_LARGE");
  }

  @Test
  void aTurnFansOutAndItsStreamCarriesTheSeedsEventsForEveryRun() throws Exception {
    String conversationId = conversation(app.api());
    JsonNode created = turn(app.api(), conversationId, "{\"prompt\": \"Compare\", \"models\": [\"alpha/mock\", \"beta/flaky\"]}");
    String turnId = created.path("turnId").asText();
    assertThat(created.path("conversationId").asText()).isEqualTo(conversationId);
    assertThat(created.path("streamUrl").asText()).isEqualTo("/v1/turns/" + turnId + "/stream");
    JsonNode runs = created.path("runs");
    assertThat(runs.findValuesAsText("provider")).containsExactly("alpha", "beta");
    String alphaRun = runs.get(0).path("runId").asText();
    String betaRun = runs.get(1).path("runId").asText();

    List<SseEvent> events = dispatched(stream(turnId, null));

    assertThat(events).allSatisfy(event -> {
      assertThat(event.event()).isEqualTo("message");
      JsonNode data = event.json();
      assertThat(data.fieldNames()).toIterable().startsWith(COMMON.toArray(String[]::new));
      assertThat(data.path("turnId").asText()).isEqualTo(turnId);
      assertThat(Instant.parse(data.path("timestamp").asText())).isNotNull();
    });
    assertThat(types(events, alphaRun)).containsExactly(concat("run_started", deltas(app.alpha().settings().tokens()),
        "usage", "run_done"));
    assertThat(types(events, betaRun)).containsExactly(concat("run_started", deltas(MockProviders.FLAKY_TOKENS), "run_error"));
    JsonNode done = only(events, alphaRun, "run_done");
    String expected = app.alpha().settings().text(app.alpha().settings().tokens());
    assertThat(done.path("finalText").asText()).isEqualTo(expected);
    assertThat(done.path("latencyMs").asLong()).isPositive();
    assertThat(done.path("provider").asText()).isEqualTo("alpha");
    assertThat(done.path("model").asText()).isEqualTo("mock");
    StringBuilder text = new StringBuilder();
    events.stream().map(SseEvent::json).filter(e -> e.path("runId").asText().equals(alphaRun) && e.path("type").asText().equals("delta"))
        .forEach(delta -> text.append(delta.path("textDelta").asText()));
    assertThat(text).hasToString(expected);
    JsonNode usage = only(events, alphaRun, "usage");
    assertThat(usage.path("completionTokens").asLong()).isEqualTo(app.alpha().settings().tokens());
    assertThat(usage.path("totalTokens").asLong()).isEqualTo(usage.path("promptTokens").asLong() + usage.path("completionTokens").asLong());
    assertThat(usage.path("costUsd").asDouble()).isCloseTo(MockProviders.cost(usage.path("promptTokens").asLong(),
        usage.path("completionTokens").asLong(), MockProviders.ALPHA_IN, MockProviders.ALPHA_OUT), within(1e-12));
    JsonNode error = only(events, betaRun, "run_error");
    assertThat(error.path("provider").asText()).isEqualTo("beta");
    assertThat(error.path("model").asText()).isEqualTo("flaky");
    assertThat(error.path("errorCode").asText()).isNotBlank();
    assertThat(error.path("errorMessage").asText()).isNotBlank().doesNotContain("Exception");

    JsonNode saved = app.api().get("/v1/conversations/" + conversationId).json();
    JsonNode turn = saved.path("turns").get(0);
    assertThat(turn.path("turnId").asText()).isEqualTo(turnId);
    assertThat(turn.path("prompt").asText()).isEqualTo("Compare");
    assertThat(turn.path("status").asText()).isEqualTo("completed");
    JsonNode responses = turn.path("agentResponses");
    assertThat(responses.findValuesAsText("runId")).containsExactly(alphaRun, betaRun);
    assertThat(responses.get(0).path("status").asText()).isEqualTo("completed");
    assertThat(responses.get(0).path("text").asText()).isEqualTo(expected);
    assertThat(responses.get(0).path("usage").path("costUsd").asDouble()).isEqualTo(usage.path("costUsd").asDouble());
    assertThat(responses.get(0).path("latencyMs").asLong()).isEqualTo(done.path("latencyMs").asLong());
    assertThat(responses.get(1).path("status").asText()).isEqualTo("failed");
    assertThat(responses.get(1).path("provider").asText()).isEqualTo("beta");
    assertThat(responses.get(1).path("errorCode").asText()).isEqualTo(error.path("errorCode").asText());
    assertThat(responses.get(1).path("text").asText()).isEqualTo(app.beta().settings().text(MockProviders.FLAKY_TOKENS));
  }

  @Test
  void aResumedStreamGetsExactlyTheEventsAfterLastEventIdAndAFinishedOneGets204() throws Exception {
    String conversationId = conversation(app.api());
    String turnId = turn(app.api(), conversationId, "{\"prompt\": \"Once\", \"models\": [\"alpha/mock\"]}").path("turnId").asText();
    List<SseEvent> all = stream(turnId, null);
    List<SseEvent> withIds = all.stream().filter(event -> event.id() != null).toList();
    SseEvent middle = withIds.get(withIds.size() / 2);

    List<SseEvent> resumed = stream(turnId, middle.number());

    assertThat(resumed.stream().map(e -> withoutTimestamp(e.data())).toList()).isEqualTo(
        all.subList(all.indexOf(middle) + 1, all.size()).stream().map(e -> withoutTimestamp(e.data())).toList());
    assertThat(streamResponse(app.api().apiKey(), turnId, withIds.getLast().number()).statusCode()).isEqualTo(204);
  }

  @Test
  void aTurnRunsToItsEndWithNobodyWatchingAndIsReplayedLater() throws Exception {
    String conversationId = conversation(app.api());
    String turnId = turn(app.api(), conversationId, "{\"prompt\": \"Unwatched\", \"models\": [\"alpha/mock\"]}")
        .path("turnId").asText();

    JsonNode turn = awaitEnded(app.api(), conversationId, turnId);

    assertThat(turn.path("status").asText()).isEqualTo("completed");
    List<SseEvent> replayed = dispatched(stream(turnId, null));
    assertThat(replayed.stream().map(e -> e.json().path("type").asText()).toList()).startsWith("run_started").endsWith("usage", "run_done");
  }

  @Test
  void withoutModelsATurnFansOutToTheTenantsSetElseToEveryProvider() throws Exception {
    String configured = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"fan_out_models\": [\"beta/mock\", \"alpha/mock\"]}");
    Api tenant = app.api().withKey(configured);
    JsonNode chosen = turn(tenant, conversation(tenant), "{\"prompt\": \"Both\"}");
    assertThat(chosen.path("runs").findValuesAsText("provider")).containsExactly("beta", "alpha");

    Api everyone = app.api().withKey(LimitedTenants.keyOfNewTenant(app.colloquy(), "{}"));
    JsonNode all = turn(everyone, conversation(everyone), "{\"prompt\": \"All of you\"}");
    assertThat(all.path("runs").findValuesAsText("provider")).containsExactly("alpha", "beta", "gamma", "slow");
    assertThat(all.path("runs").findValuesAsText("model")).containsExactly("mock", "mock", "unreachable", "mock");
  }

  @Test
  void badTurnsAreRefusedWithTheDialectsCodes() throws Exception {
    String conversationId = conversation(app.api());
    String turns = "/v1/conversations/" + conversationId + "/turns";
    assertError(app.api().post(turns, "{}"), 400, "FIELD_REQUIRED");
    assertError(app.api().post(turns, "{\"prompt\": 42}"), 422, "INVALID_FIELD");
    assertError(app.api().post(turns, "{\"prompt\": \"hi\", \"models\": \"alpha/mock\"}"), 422, "INVALID_FIELD");
    assertError(app.api().post(turns, "{\"prompt\": \"  \"}"), 422, "EMPTY_MESSAGE");
    assertError(app.api().post(turns, "{\"prompt\": \"hi\", \"models\": [\"delta/mock\"]}"), 422, "UNKNOWN_MODEL");
    assertError(app.api().post(turns, "{\"prompt\": "), 400, "MALFORMED_JSON");
    assertError(app.api().post("/v1/conversations", "[1]"), 400, "MALFORMED_JSON");
    assertThat(app.api().get("/v1/conversations/" + conversationId).json().path("turns")).isEmpty();
  }

  @Test
  void aForeignConversationOrTurnAnswersExactlyAsAMissingOne() throws Exception {
    Api other = app.api().withKey(LimitedTenants.keyOfNewTenant(app.colloquy(), "{}"));
    String theirs = conversation(other);
    String theirTurn = turn(other, theirs, "{\"prompt\": \"Private\", \"models\": [\"alpha/mock\"]}").path("turnId").asText();
    String missing = UUID.randomUUID().toString();

    for (String path : List.of("/v1/conversations/%s", "/v1/conversations/%s/turns")) {
      Api.Response foreign = path.endsWith("turns") ? app.api().post(path.formatted(theirs), "{\"prompt\": \"hi\"}")
          : app.api().get(path.formatted(theirs));
      Api.Response absent = path.endsWith("turns") ? app.api().post(path.formatted(missing), "{\"prompt\": \"hi\"}")
          : app.api().get(path.formatted(missing));
      assertError(foreign, 404, "CONVERSATION_NOT_FOUND");
      assertThat(foreign.withoutTraceId()).isEqualTo(absent.withoutTraceId());
    }
    Api.Response foreignTurn = app.api().get("/v1/turns/" + theirTurn + "/stream");
    Api.Response absentTurn = app.api().get("/v1/turns/" + missing + "/stream");
    Api.Response notAnId = app.api().get("/v1/turns/not-a-turn/stream");
    assertError(foreignTurn, 404, "TURN_NOT_FOUND");
    assertThat(foreignTurn.withoutTraceId()).isEqualTo(absentTurn.withoutTraceId()).isEqualTo(notAnId.withoutTraceId());
    assertThat(foreignTurn.body()).doesNotContain("Private", theirs);
  }

  @Test
  void aClosedConversationAndATurnInProgressAreConflicts() throws Exception {
    String closed = conversation(app.api());
    assertThat(app.api().post("/v1/sessions/" + closed + "/close", "{}").status()).isEqualTo(200);
    assertError(app.api().post("/v1/conversations/" + closed + "/turns", "{\"prompt\": \"hi\"}"), 409, "CONVERSATION_CLOSED");

    String busy = conversation(app.api());
    String running = turn(app.api(), busy, "{\"prompt\": \"Slowly\", \"models\": [\"slow/mock\"]}").path("turnId").asText();
    Api.Response refused = app.api().post("/v1/conversations/" + busy + "/turns", "{\"prompt\": \"Me too\"}");
    assertError(refused, 409, "TURN_IN_PROGRESS");
    assertThat(refused.json().path("error").path("message").asText()).contains(running);
    assertError(app.api().send("GET", "/v1/turns/" + running + "/stream", null, "Last-Event-ID", "soon"), 400, "INVALID_LAST_EVENT_ID");
  }

  private static JsonNode awaitEnded(Api api, String conversationId, String turnId) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      JsonNode turn = api.get("/v1/conversations/" + conversationId).json().path("turns").get(0);
      if (turn.path("turnId").asText().equals(turnId) && !turn.path("status").asText().equals("running")) {
        return turn;
      }
      assertThat(System.nanoTime()).as("turn " + turnId + " still running").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  private static List<String> types(List<SseEvent> events, String runId) {
    return events.stream().map(SseEvent::json).filter(event -> event.path("runId").asText().equals(runId))
        .map(event -> event.path("type").asText()).toList();
  }

  private static JsonNode only(List<SseEvent> events, String runId, String type) {
    List<JsonNode> matching = events.stream().map(SseEvent::json)
        .filter(event -> event.path("runId").asText().equals(runId) && event.path("type").asText().equals(type)).toList();
    assertThat(matching).as(type + " of " + runId).hasSize(1);
    return matching.getFirst();
  }

  private static String[] deltas(int count) {
    return java.util.Collections.nCopies(count, "delta").toArray(String[]::new);
  }

  private static String[] concat(String first, String[] middle, String... last) {
    List<String> all = new java.util.ArrayList<>(List.of(first));
    all.addAll(List.of(middle));
    all.addAll(List.of(last));
    return all.toArray(String[]::new);
  }

  private static String withoutTimestamp(String data) {
    return data.replaceAll("\"timestamp\":\"[^\"]*\"", "");
  }

  private static void assertError(Api.Response response, int status, String code) {
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    JsonNode error = response.json().path("error");
    assertThat(error.path("code").asText()).as(response.body()).isEqualTo(code);
    assertThat(error.path("message").asText()).isNotBlank();
    assertThat(error.path("trace_id").asText()).isNotBlank();
  }
}
