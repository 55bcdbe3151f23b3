package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.model.TokenCounter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A turn cancelled mid-stream was paid for upstream (its prompt, and every token that streamed),
 * though the provider's usage, sent only at the end of a stream, never came: its session's summary
 * and billing record count what was sent and streamed, marked estimated.
 */
class CancelledTurnBillingIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String MODEL_KEY = "openai-compatible/" + TestColloquy.MODEL;

  // The agent routes each message by the rules here, not by a model call of its own: the model's only
  // call of the turn is then the answer that is cancelled, whose count the summary must carry exactly.
  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.slowMock(),
      Map.of("colloquy.agent.intent-router", "offline"));

  @Test
  void aCancelledTurnIsBilledForItsPromptAndTheTokensThatStreamed() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    StringBuilder streamed = new StringBuilder();
    try (SseClient stream = api.streamTurn(sessionId, Api.turn("Tell me everything about the warranty"))) {
      List<SseEvent> seen = stream.readUntil(
          event -> event.event().equals("token") && event.number() >= 12, WAIT);
      String turnId = seen.getFirst().text("turn_id");
      assertThat(api.post("/v1/sessions/" + sessionId + "/turns/" + turnId + "/cancel", "").status()).isEqualTo(202);
      List<SseEvent> all = new ArrayList<>(seen);
      all.addAll(stream.readToEnd(WAIT));
      assertThat(all.getLast().event()).isEqualTo("turn.cancelled");
      all.stream().filter(event -> event.event().equals("token")).forEach(token -> streamed.append(token.text("text")));
    }
    assertThat(streamed).isNotEmpty();

    Api.Response closed = api.post("/v1/sessions/" + sessionId + "/close", "");
    assertThat(closed.status()).as(closed.body()).isEqualTo(200);
    JsonNode usage = closed.json().path("summary").path("usage_by_model").path(MODEL_KEY);
    assertThat(usage.path("estimated").asBoolean()).as(closed.body()).isTrue();
    assertThat(usage.path("completion_tokens").asLong()).isEqualTo(TokenCounter.count(streamed.toString()));
    assertThat(usage.path("prompt_tokens").asLong()).isPositive();
    assertThat(usage.path("total_tokens").asLong())
        .isEqualTo(usage.path("prompt_tokens").asLong() + usage.path("completion_tokens").asLong());

    JsonNode end = awaitSessionEnd(api, sessionId);
    assertThat(end.path("completion_tokens").asLong()).isEqualTo(usage.path("completion_tokens").asLong());
    assertThat(end.path("prompt_tokens").asLong()).isEqualTo(usage.path("prompt_tokens").asLong());
    assertThat(end.path("usage_by_model").path(MODEL_KEY).path("estimated").asBoolean()).isTrue();
  }

  @Test
  void aCompletedTurnCarriesTheProvidersOwnCount() throws Exception {
    app.mock().reconfigure(TestColloquy.fastMock());
    try {
      Api.Response turn = app.api().post("/v1/sessions/" + app.api().openSession() + "/turns", Api.turn("Hello"));
      assertThat(turn.status()).as(turn.body()).isEqualTo(200);
      assertThat(turn.json().path("usage").path("estimated").isBoolean()).isTrue();
      assertThat(turn.json().path("usage").path("estimated").asBoolean()).isFalse();
    } finally {
      app.mock().reconfigure(TestColloquy.slowMock());
    }
  }

  private static JsonNode awaitSessionEnd(Api api, String sessionId) throws Exception {
    JsonNode[] end = {null};
    ReadTables.await("the session's billing end record", WAIT, () -> {
      for (JsonNode record : api.get("/v1/billing").json().path("records")) {
        if (record.path("session_id").asText().equals(sessionId) && record.path("kind").asText().equals("session_end")) {
          end[0] = record;
        }
      }
      return end[0] != null;
    });
    return end[0];
  }
}
