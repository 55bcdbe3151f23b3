package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import dev.colloquy.persistence.tenant.TenantStore;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The model's tool-calling loop over real HTTP, with the mock model scripting the calls: a call
 * and its result stream as {@code tool.called} / {@code tool.result}, go back to the model in
 * OpenAI's protocol, are journaled, and a replay of the finished turn shows them where they were;
 * a call the server cannot run is an error the model reads; the step limit ends the loop.
 */
class ToolCallingIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock().withTokens(4),
      Map.of("colloquy.agent.tools.max-steps", 2, "colloquy.agent.egress-allow", "127.0.0.1",
          "colloquy.agent.webhooks.poll-interval", "100ms"));

  private static WebhookReceiver receiver;

  @AfterAll
  static void stopReceiver() {
    if (receiver != null) {
      receiver.close();
    }
  }

  @BeforeAll
  static void ingest() throws Exception {
    receiver = new WebhookReceiver();
    JsonNode document = app.api().ingest("refunds.md", ("# Refunds\n\n## Damaged parcels\n\n"
        + "A damaged parcel is refunded within 14 days of the claim.\n").getBytes(StandardCharsets.UTF_8));
    assertThat(document.path("status").asText()).isEqualTo("ready");
  }

  private static List<SseEvent> stream(String sessionId, String message) throws Exception {
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn(message))) {
      return stream.readToEnd(WAIT);
    }
  }

  private static List<SseEvent> named(List<SseEvent> events, String name) {
    return events.stream().filter(event -> event.event().equals(name)).toList();
  }

  /** The model's request that followed the one whose last user message was {@code message}, in order. */
  private static List<JsonNode> requestsAbout(String message) {
    return app.mock().stats().chatRequests().stream()
        .filter(request -> request.path("tools").isArray() || request.path("messages").toString().contains("\"tool\""))
        .filter(request -> request.path("messages").toString().contains(message.substring(0, 20)))
        .toList();
  }

  @Test
  void theModelCallsKnowledgeRetrievalThenAnswersWithItsResult() throws Exception {
    String sessionId = app.api().openSession();
    String message = "When is a damaged parcel refunded? mock-tool:knowledge_retrieval{\"query\":\"damaged parcel refund\"}";

    List<SseEvent> events = stream(sessionId, message);

    assertThat(events).extracting(SseEvent::event).containsSubsequence("tool.called", "tool.result", "token",
        "run.completed", "turn.completed");
    SseEvent called = named(events, "tool.called").getFirst();
    assertThat(called.text("tool")).isEqualTo("knowledge_retrieval");
    assertThat(called.text("arguments")).isEqualTo("{\"query\":\"damaged parcel refund\"}");
    assertThat(called.text("run_id")).isNotBlank();
    SseEvent result = named(events, "tool.result").getFirst();
    assertThat(result.text("call_id")).isEqualTo(called.text("call_id"));
    assertThat(result.json().path("ok").asBoolean()).isTrue();
    JsonNode content = Api.JSON.readTree(result.text("content"));
    assertThat(content.path("passages").findValuesAsText("document")).contains("refunds.md");
    assertThat(content.path("passages").toString()).contains("refunded within 14 days");
    assertThat(named(events, "turn.completed").getFirst().text("text"))
        .isEqualTo(app.mock().settings().text(4));

    // The second call sent the model its own call and the tool's result, in OpenAI's protocol.
    JsonNode second = requestsAbout(message).getLast();
    JsonNode messages = second.path("messages");
    JsonNode asked = messages.get(messages.size() - 2);
    assertThat(asked.path("role").asText()).isEqualTo("assistant");
    assertThat(asked.path("tool_calls").get(0).path("id").asText()).isEqualTo(called.text("call_id"));
    assertThat(asked.path("tool_calls").get(0).path("function").path("name").asText()).isEqualTo("knowledge_retrieval");
    JsonNode answered = messages.get(messages.size() - 1);
    assertThat(answered.path("role").asText()).isEqualTo("tool");
    assertThat(answered.path("tool_call_id").asText()).isEqualTo(called.text("call_id"));
    assertThat(answered.path("content").asText()).contains("refunded within 14 days");
    assertThat(second.path("tools").findValuesAsText("name")).contains("knowledge_retrieval");

    // A client joining the finished turn gets the same frames, rebuilt from the journal.
    String turnId = called.text("turn_id");
    try (SseClient replay = app.api().joinTurn(sessionId, turnId, 0L)) {
      assertThat(replay.readToEnd(WAIT)).isEqualTo(events);
    }
    JsonNode journal = app.api().get("/v1/sessions/" + sessionId + "/journal").json();
    JsonNode tools = lastTools(journal);
    assertThat(tools.findValuesAsText("type")).containsExactly("ToolCalled", "ToolResulted");
    assertThat(tools.findValuesAsText("tool")).containsOnly("knowledge_retrieval");
  }

  @Test
  void aCallTheServerCannotRunIsAnErrorTheModelReadsAndTheTurnCompletes() throws Exception {
    String sessionId = app.api().openSession();
    String message = "Please check this for me mock-tool:no_such_tool mock-tool:knowledge_retrieval{\"q\":1}";

    List<SseEvent> events = stream(sessionId, message);

    List<SseEvent> results = named(events, "tool.result");
    assertThat(results).extracting(event -> event.text("tool")).containsExactly("no_such_tool", "knowledge_retrieval");
    assertThat(results).allMatch(event -> !event.json().path("ok").asBoolean());
    assertThat(Api.JSON.readTree(results.get(0).text("content")).path("error").asText()).isEqualTo("unknown_tool");
    JsonNode invalid = Api.JSON.readTree(results.get(1).text("content"));
    assertThat(invalid.path("error").asText()).isEqualTo("invalid_arguments");
    assertThat(invalid.path("message").asText()).isEqualTo("The argument 'query' must be a non-empty string");
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
    JsonNode messages = requestsAbout(message).getLast().path("messages");
    assertThat(messages.get(messages.size() - 1).path("content").asText()).contains("invalid_arguments");
  }

  @Test
  void webSearchIsNotOfferedWhileTheOperatorConfiguredNoSearchApi() throws Exception {
    String sessionId = app.api().openSession();
    String message = "Search the web for parcel rules mock-tool:web_search{\"query\":\"parcel rules\"}";

    List<SseEvent> events = stream(sessionId, message);

    assertThat(requestsAbout(message).getFirst().path("tools").findValuesAsText("name"))
        .contains("knowledge_retrieval").doesNotContain("web_search");
    SseEvent result = named(events, "tool.result").getFirst();
    assertThat(Api.JSON.readTree(result.text("content")).path("error").asText()).isEqualTo("unknown_tool");
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
  }

  @Test
  void theStepLimitEndsTheLoopWithAnAnswerWithoutTools() throws Exception {
    String sessionId = app.api().openSession();
    String message = "Keep looking it up mock-tool-always:knowledge_retrieval{\"query\":\"refund\"}";

    List<SseEvent> events = stream(sessionId, message);

    assertThat(named(events, "tool.called")).hasSize(2);
    assertThat(named(events, "tool.result")).hasSize(2);
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
    assertThat(events.getLast().text("text")).isEqualTo(app.mock().settings().text(4));
    List<JsonNode> requests = requestsAbout(message);
    assertThat(requests).hasSize(3);
    assertThat(requests.getLast().has("tools")).as("the last call offers no tools").isFalse();
    assertThat(requests.getLast().path("messages").findValuesAsText("role")).containsSubsequence(
        "user", "assistant", "tool", "assistant", "tool");
  }

  @Test
  void theModelHandsTheConversationToAHumanAndTheSessionEscalatesWithItsWebhook() throws Exception {
    var created = new TenantStore(app.colloquy().database().dataSource()).create("tools-" + UUID.randomUUID());
    Api tenant = new Api(app.colloquy().baseUrl(), created.key().apiKey());
    Api.Response configured = tenant.send("PUT", "/v1/config",
        "{\"escalation_webhook_url\": \"" + receiver.url() + "\", \"escalation_threshold\": 0}");
    assertThat(configured.status()).as(configured.body()).isEqualTo(200);
    String sessionId = tenant.openSession();
    String message = "My parcel is lost mock-tool:escalate_to_human{\"reason\":\"lost parcel claim\"}";

    List<SseEvent> events;
    try (SseClient stream = tenant.streamTurn(sessionId, Api.turn(message))) {
      events = stream.readToEnd(WAIT);
    }

    assertThat(events).extracting(SseEvent::event).containsSubsequence("tool.called", "tool.result", "escalation",
        "token", "turn.completed");
    assertThat(named(events, "escalation").getFirst().text("reason")).isEqualTo("agent_requested");
    assertThat(named(events, "tool.result").getFirst().json().path("ok").asBoolean()).isTrue();
    assertThat(tenant.session(sessionId).path("status").asText()).isEqualTo("escalated");
    assertThat(requestsAbout(message).getLast().has("tools")).as("the hand-off is written without tools").isFalse();
    WebhookReceiver.Attempt webhook = receiver.await(attempt -> attempt.body().contains(sessionId), 1, WAIT).getFirst();
    assertThat(Api.JSON.readTree(webhook.body()).path("escalation_reason").asText()).isEqualTo("agent_requested");
  }

  @Test
  void theMemoryToolsReadAndWriteOnlyTheSessionsOwnUser() throws Exception {
    Api.Response context = app.api().send("PUT", "/v1/users/alice/context", "{\"plan\": \"pro\"}");
    assertThat(context.status()).as(context.body()).isEqualTo(200);
    String alice = userSession("alice");
    String bob = userSession("bob");

    JsonNode stored = toolResults(alice, "Note this mock-tool:store_memory{\"content\":\"The user's dog is called Rex\"}", "alice")
        .getFirst();
    assertThat(Api.JSON.readTree(stored.path("content").asText()).path("stored").asBoolean()).isTrue();

    String recall = "What do you know? mock-tool:recall_memory{\"query\":\"dog\"} mock-tool:get_user_context";
    List<JsonNode> bobs = toolResults(bob, recall, "bob");
    assertThat(bobs.get(0).path("content").asText()).doesNotContain("Rex");
    assertThat(Api.JSON.readTree(bobs.get(0).path("content").asText()).path("memories")).isEmpty();
    assertThat(Api.JSON.readTree(bobs.get(1).path("content").asText()).path("known").asBoolean()).isFalse();

    List<JsonNode> alices = toolResults(userSession("alice"), recall, "alice");
    assertThat(alices.get(0).path("content").asText()).contains("The user's dog is called Rex");
    assertThat(Api.JSON.readTree(alices.get(1).path("content").asText()).path("plan").asText()).isEqualTo("pro");
  }

  private static String userSession(String user) throws Exception {
    Api.Response opened = app.api().post("/v1/sessions", "{}", "X-User-Id", user);
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    return opened.json().path("session_id").asText();
  }

  /**
   * The tool calls the journal's last entry with any holds: the latest turn's ending (a running turn's
   * checkpoints journal the calls made so far before it, starting empty).
   */
  private static JsonNode lastTools(JsonNode journal) {
    return journal.findValues("tools").getLast();
  }

  /** Runs a turn of {@code user}'s session and returns its journaled tool results, in the calls' order. */
  private static List<JsonNode> toolResults(String sessionId, String message, String user) throws Exception {
    Api.Response turn = app.api().post("/v1/sessions/" + sessionId + "/turns", Api.turn(message), "X-User-Id", user);
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    JsonNode journal = app.api().get("/v1/sessions/" + sessionId + "/journal").json();
    List<JsonNode> results = new java.util.ArrayList<>();
    lastTools(journal).forEach(event -> {
      if (event.path("type").asText().equals("ToolResulted")) {
        results.add(event);
      }
    });
    return results;
  }
}
