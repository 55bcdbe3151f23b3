package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code web_search} against a Tavily-compatible search API that this test runs on loopback (the
 * operator's configuration names it, its key and loopback's allowance): the model is offered the
 * tool, the API gets the key, the query and the number of results, and the results reach the model
 * in its next request; an API that fails is an error the model reads. That the tool is not offered
 * without a configured URL is in {@link ToolCallingIntegrationTest}.
 */
class WebSearchToolIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final TavilyCompatibleReceiver search = TavilyCompatibleReceiver.start();

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock().withTokens(4),
      Map.of("colloquy.agent.egress-allow", "127.0.0.1", "colloquy.agent.tools.web-search.url", search.url(),
          "colloquy.agent.tools.web-search.api-key", TavilyCompatibleReceiver.KEY,
          "colloquy.agent.tools.web-search.max-results", 3));

  @AfterAll
  static void stopSearch() {
    search.close();
  }

  private static List<SseEvent> stream(String message) throws Exception {
    try (SseClient stream = app.api().streamTurn(app.api().openSession(), Api.turn(message))) {
      return stream.readToEnd(WAIT);
    }
  }

  private static SseEvent only(List<SseEvent> events, String name) {
    List<SseEvent> named = events.stream().filter(event -> event.event().equals(name)).toList();
    assertThat(named).as(name).hasSize(1);
    return named.getFirst();
  }

  @Test
  void theModelSearchesTheWebAndReadsTheResults() throws Exception {
    String message = "What did a Victorian widow wear in mourning? "
        + "mock-tool:web_search{\"query\":\"Victorian widow mourning dress\"}";

    List<SseEvent> events = stream(message);

    assertThat(events).extracting(SseEvent::event).containsSubsequence("tool.called", "tool.result", "token",
        "turn.completed");
    SseEvent called = only(events, "tool.called");
    assertThat(called.text("tool")).isEqualTo("web_search");
    SseEvent result = only(events, "tool.result");
    assertThat(result.json().path("ok").asBoolean()).isTrue();
    JsonNode results = Api.JSON.readTree(result.text("content")).path("results");
    assertThat(results).hasSize(3);
    assertThat(results.get(0).path("url").asText()).isEqualTo("https://history.example.org/mourning/1");
    assertThat(results.get(0).has("score")).as("only title, url and content reach the model").isFalse();

    JsonNode sent = search.requests().stream()
        .filter(request -> request.path("query").asText().equals("Victorian widow mourning dress"))
        .findFirst().orElseThrow();
    assertThat(sent.path("api_key").asText()).isEqualTo(TavilyCompatibleReceiver.KEY);
    assertThat(sent.path("max_results").asInt()).isEqualTo(3);

    List<JsonNode> requests = app.mock().stats().chatRequests().stream()
        .filter(request -> request.path("messages").toString().contains("Victorian widow"))
        .filter(request -> request.path("tools").isArray()).toList();
    assertThat(requests.getFirst().path("tools").findValuesAsText("name")).contains("web_search");
    JsonNode messages = requests.getLast().path("messages");
    JsonNode answered = messages.get(messages.size() - 1);
    assertThat(answered.path("role").asText()).isEqualTo("tool");
    assertThat(answered.path("tool_call_id").asText()).isEqualTo(called.text("call_id"));
    assertThat(answered.path("content").asText()).contains("Widows wore black crape for a year and a day");

    JsonNode journal = app.api().get("/v1/sessions/" + called.text("session_id") + "/journal").json();
    JsonNode tools = journal.findValues("tools").getLast();
    assertThat(tools.findValuesAsText("type")).containsExactly("ToolCalled", "ToolResulted");
    assertThat(tools.findValuesAsText("tool")).containsOnly("web_search");
    assertThat(journal.toString()).as("the key never reaches the journal").doesNotContain(TavilyCompatibleReceiver.KEY);
  }

  @Test
  void aSearchApiThatFailsIsAnErrorTheModelReadsAndTheTurnCompletes() throws Exception {
    List<SseEvent> events = stream("Look this up mock-tool:web_search{\"query\":\"unavailable topic\"}");

    SseEvent result = only(events, "tool.result");
    assertThat(result.json().path("ok").asBoolean()).isFalse();
    JsonNode content = Api.JSON.readTree(result.text("content"));
    assertThat(content.path("error").asText()).isEqualTo("upstream_failed");
    assertThat(content.path("message").asText()).isEqualTo("The web search answered HTTP 500");
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
  }
}
