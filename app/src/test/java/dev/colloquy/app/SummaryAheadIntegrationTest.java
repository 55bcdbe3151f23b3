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
 * A session whose history window is full by count: the turn that fills it has the model summarize the
 * window's older half beside its answer, journals that summary with its end, and the next turn's prompt
 * carries it in place of the messages it covers, without a summary call of its own before its answer.
 */
class SummaryAheadIntegrationTest {

  private static final String SUMMARY_INSTRUCTIONS = "You summarize the earlier part of a conversation";

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.session.history-window", 4,
      "colloquy.agent.intent-router", "offline"));

  private static Credentialed.Reply call(String key, String method, String path, String body) throws Exception {
    return Credentialed.send(app.colloquy().baseUrl(), method, path, body, "Authorization", "Bearer " + key);
  }

  @Test
  void theTurnThatFillsTheWindowSummarizesItForTheNextTurn() throws Exception {
    String key = new TenantStore(app.colloquy().database().dataSource()).create("ahead-" + UUID.randomUUID())
        .key().apiKey();
    String sessionId = call(key, "POST", "/v1/sessions", "{}").json().path("session_id").asText();
    String summary = app.mock().settings().text(app.mock().settings().tokens()).strip();
    List<Integer> summaryCallsBefore = new ArrayList<>();
    for (int turn = 1; turn <= 4; turn++) {
      summaryCallsBefore.add(summaryCalls());
      Credentialed.Reply answered = call(key, "POST", "/v1/sessions/" + sessionId + "/turns",
          Api.turn("Question " + turn));
      assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    }

    assertThat(summaryCallsBefore.get(2)).as("turns 1 and 2 fit the window and the next turn's").isZero();
    JsonNode third = answering("Question 3");
    assertThat(third.toString()).as("the third turn's prompt still holds the first turn").contains("Question 1")
        .doesNotContain("<earlier_conversation>");
    assertThat(summaryCallsBefore.get(3)).as("the third turn summarized the first for the fourth").isEqualTo(1);

    JsonNode fourth = answering("Question 4");
    assertThat(fourth.toString()).as("the summary takes the first turn's place").doesNotContain("Question 1")
        .contains("<earlier_conversation>\\n" + summary + "\\n</earlier_conversation>").contains("Question 2");

    List<JsonNode> summarized = new ArrayList<>();
    for (JsonNode event : call(key, "GET", "/v1/sessions/" + sessionId + "/journal", null).json().path("events")) {
      if (event.toString().contains("\"HistorySummarized\"")) {
        summarized.add(event);
      }
    }
    assertThat(summarized).as("journaled with the third and the fourth turn's ends").hasSize(2);
    assertThat(summarized.getFirst().findValue("covered_messages").asInt()).isEqualTo(2);
    assertThat(summarized.getLast().findValue("covered_messages").asInt()).isEqualTo(4);
  }

  private static int summaryCalls() {
    return (int) app.mock().stats().chatRequests().stream()
        .filter(request -> request.path("messages").get(0).path("content").asText().startsWith(SUMMARY_INSTRUCTIONS))
        .count();
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
