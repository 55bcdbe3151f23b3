package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
      Map.of("colloquy.agent.tools.max-steps", 2));

  @BeforeAll
  static void ingest() throws Exception {
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
    JsonNode tools = journal.findValue("tools");
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
}
