package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;

/** What an idle close leaves behind: the journal's SessionClosed with its summary, and the billing record. */
final class IdleCloseAssertions {

  private IdleCloseAssertions() {}

  /** {@code turn} is the JSON reply of the session's one completed turn. */
  static void closedForIdleness(Api api, Colloquy colloquy, String sessionId, JsonNode turn) throws Exception {
    String model = turn.at("/runs/0/provider").asText() + "/" + turn.at("/runs/0/model").asText();
    long promptTokens = turn.at("/usage/prompt_tokens").asLong();
    long completionTokens = turn.at("/usage/completion_tokens").asLong();

    JsonNode events = api.get("/v1/sessions/" + sessionId + "/journal").json().path("events");
    JsonNode closed = events.get(events.size() - 1);
    assertThat(closed.path("type").asText()).isEqualTo("SessionClosed");
    JsonNode summary = closed.at("/event/summary");
    assertThat(closed.at("/event/reason").asText()).isEqualTo("idle");
    assertThat(summary.path("turns").asInt()).isEqualTo(1);
    assertThat(summary.path("completed_turns").asInt()).isEqualTo(1);
    assertThat(summary.path("usage_by_model").path(model).path("prompt_tokens").asLong()).isEqualTo(promptTokens);
    assertThat(summary.path("usage_by_model").path(model).path("completion_tokens").asLong()).isEqualTo(completionTokens);
    assertThat(summary.path("duration_ms").asLong()).isPositive();

    ReadTables tables = new ReadTables(colloquy.database().dataSource());
    ReadTables.await("the idle close reaches the billing records", Duration.ofSeconds(20),
        () -> tables.rows("SELECT 1 FROM billing_events WHERE session_id = ? AND kind = 'session_end'", sessionId).size() == 1);
    Map<String, Object> end = tables.rows(
        "SELECT * FROM billing_events WHERE session_id = ? AND kind = 'session_end'", sessionId).getFirst();
    assertThat(end).containsEntry("reason", "idle").containsEntry("turns", 1)
        .containsEntry("prompt_tokens", promptTokens).containsEntry("completion_tokens", completionTokens)
        .containsEntry("duration_ms", summary.path("duration_ms").asLong());
    assertThat(tables.session(sessionId)).containsEntry("status", "closed").containsEntry("close_reason", "idle")
        .containsEntry("completion_tokens", completionTokens);
  }
}
