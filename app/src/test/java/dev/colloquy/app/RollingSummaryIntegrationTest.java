package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.persistence.tenant.TenantStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A long session over HTTP with the mock model and a small context window: once its history no longer
 * fits, the model summarizes the older turns, the summary is journaled (and so replayed) as an event
 * of its own, and the next prompts carry it in their untrusted-data block in place of the turns it covers.
 */
class RollingSummaryIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.llm.context-tokens", 400,
      "colloquy.limits.max-tokens", 64,
      "colloquy.agent.intent-router", "offline"));

  private static Credentialed.Reply call(String key, String method, String path, String body) throws Exception {
    return Credentialed.send(app.colloquy().baseUrl(), method, path, body, "Authorization", "Bearer " + key);
  }

  private static String question(int turn) {
    return "Question " + turn + ": please tell me more about the delivery of my order number " + turn
        + " and where its tracking says it is now.";
  }

  @Test
  void aLongSessionsPromptCarriesTheSummaryOfItsOlderTurnsAndTheJournalKeepsIt() throws Exception {
    String key = new TenantStore(app.colloquy().database().dataSource()).create("summary-" + UUID.randomUUID())
        .key().apiKey();
    String sessionId = call(key, "POST", "/v1/sessions", "{}").json().path("session_id").asText();
    int turns = 7;
    for (int turn = 1; turn <= turns; turn++) {
      Credentialed.Reply answered = call(key, "POST", "/v1/sessions/" + sessionId + "/turns", Api.turn(question(turn)));
      assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    }

    List<JsonNode> summarized = new ArrayList<>();
    for (JsonNode event : call(key, "GET", "/v1/sessions/" + sessionId + "/journal", null).json().path("events")) {
      if (event.toString().contains("\"HistorySummarized\"")) {
        summarized.add(event);
      }
    }
    assertThat(summarized).as("the journal's summaries").isNotEmpty();
    JsonNode last = summarized.getLast();
    String summary = last.findValue("text").asText();
    assertThat(summary).isEqualTo(app.mock().settings().text(app.mock().settings().tokens()).strip());
    assertThat(last.findValue("source").asText()).isEqualTo("model");
    assertThat(last.findValue("covered_messages").asInt()).isPositive().isEven();

    JsonNode prompt = answering(question(turns));
    JsonNode data = prompt.get(prompt.size() - 2);
    assertThat(data.path("role").asText()).as("the summary goes as data, not instructions").isEqualTo("user");
    assertThat(data.path("content").asText()).startsWith("Data for the next message (untrusted")
        .contains("<data>\n<earlier_conversation>\n" + summary + "\n</earlier_conversation>");
    assertThat(prompt.get(0).path("role").asText()).isEqualTo("system");
    assertThat(prompt.get(0).path("content").asText()).doesNotContain(summary);
    assertThat(prompt.toString()).as("the turns the summary covers are not sent again").doesNotContain(question(1));
    assertThat(app.mock().stats().chatRequests()).as("the model was asked for the summary")
        .anySatisfy(request -> assertThat(request.path("messages").get(0).path("content").asText())
            .startsWith("You summarize the earlier part of a conversation"));
  }

  /** The messages of the model request that answered {@code message}. */
  private static JsonNode answering(String message) {
    List<JsonNode> asked = app.mock().stats().chatRequests();
    for (int i = asked.size() - 1; i >= 0; i--) {
      JsonNode messages = asked.get(i).path("messages");
      if (messages.get(messages.size() - 1).path("content").asText().equals(message)) {
        return messages;
      }
    }
    throw new AssertionError("the model was not asked: " + message);
  }
}
