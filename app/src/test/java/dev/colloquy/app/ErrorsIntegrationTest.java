package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every refusal has its status, its stable code and the error body of API.md, never a stack trace. */
class ErrorsIntegrationTest {

  private static final int MAX_MESSAGE_BYTES = 32 * 1024;

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  private String sessionId;

  @BeforeEach
  void openSession() throws Exception {
    app.mock().reconfigure(TestColloquy.fastMock());
    sessionId = app.api().openSession();
  }

  @Test
  void malformedJsonIs400() throws Exception {
    assertError(app.api().post(turns(), "{\"message\": \"unterminated"), 400, "MALFORMED_JSON");
    assertError(app.api().post(turns(), "[\"not an object\"]"), 400, "MALFORMED_JSON");
    assertError(app.api().post("/v1/sessions", "{nope"), 400, "MALFORMED_JSON");
  }

  @Test
  void anUnknownSessionIs404() throws Exception {
    String unknown = UUID.randomUUID().toString();
    assertError(app.api().get("/v1/sessions/" + unknown), 404, "SESSION_NOT_FOUND");
    assertError(app.api().post("/v1/sessions/" + unknown + "/turns", Api.turn("hello")), 404, "SESSION_NOT_FOUND");
    assertError(app.api().get("/v1/sessions/not-a-uuid"), 404, "SESSION_NOT_FOUND");
    assertError(app.api().post("/v1/sessions/not-a-uuid/turns", Api.turn("hello")), 404, "SESSION_NOT_FOUND");
  }

  @Test
  void anUnknownTurnIs404() throws Exception {
    String unknown = UUID.randomUUID().toString();
    assertError(app.api().post(turns() + "/" + unknown + "/cancel", ""), 404, "TURN_NOT_FOUND");
    assertError(app.api().send("GET", turns() + "/" + unknown + "/events", null, "Accept", "text/event-stream"),
        404, "TURN_NOT_FOUND");
  }

  @Test
  void anEmptyOrMissingMessageIs422() throws Exception {
    assertError(app.api().post(turns(), Api.turn("")), 422, "EMPTY_MESSAGE");
    assertError(app.api().post(turns(), Api.turn("  \n\t ")), 422, "EMPTY_MESSAGE");
    assertError(app.api().post(turns(), "{}"), 422, "MESSAGE_REQUIRED");
    assertError(app.api().post(turns(), "{\"message\": null}"), 422, "MESSAGE_REQUIRED");
  }

  @Test
  void aMessageOverTheLimitIs413AndOneAtTheLimitIsAccepted() throws Exception {
    assertError(app.api().post(turns(), Api.turn("a".repeat(MAX_MESSAGE_BYTES + 1))), 413, "MESSAGE_TOO_LARGE");
    // Counted in UTF-8 bytes, not characters: 16 Ki two-byte characters are 32 KiB plus 2.
    assertError(app.api().post(turns(), Api.turn("é".repeat(MAX_MESSAGE_BYTES / 2 + 1))), 413, "MESSAGE_TOO_LARGE");

    Api.Response atLimit = app.api().post(turns(), Api.turn("a".repeat(MAX_MESSAGE_BYTES)));
    assertThat(atLimit.status()).as(atLimit.body()).isEqualTo(200);
  }

  @Test
  void anUnknownModelIs422() throws Exception {
    Api.Response response = app.api().post(turns(), Api.turn("hello", List.of(TestColloquy.MODEL, "no-such-model")));
    assertError(response, 422, "UNKNOWN_MODEL");
    assertThat(response.json().path("error").path("message").asText()).contains("no-such-model");
    assertThat(app.api().session(sessionId).path("messages")).isEmpty();
  }

  @Test
  void aSecondMessageWhileATurnRunsIs409NamingTheRunningTurn() throws Exception {
    app.mock().reconfigure(TestColloquy.slowMock());
    try (SseClient running = app.api().streamTurn(sessionId, Api.turn("a long answer, please"))) {
      String turnId = running.readUntil(event -> event.event().equals("token"), Duration.ofSeconds(30))
          .getFirst().text("turn_id");

      Api.Response second = app.api().post(turns(), Api.turn("are you done yet?"));

      assertError(second, 409, "TURN_IN_PROGRESS");
      assertThat(second.json().path("error").path("message").asText()).contains(turnId);
      Api.Response secondAsStream = app.api().send("POST", turns(), Api.turn("are you done yet?"), "Accept", "text/event-stream");
      assertError(secondAsStream, 409, "TURN_IN_PROGRESS");
      assertThat(app.api().post(turns() + "/" + turnId + "/cancel", "").status()).isEqualTo(202);
      assertThat(running.readToEnd(Duration.ofSeconds(30)).getLast().event()).isEqualTo("turn.cancelled");
    }
    assertThat(app.api().session(sessionId).path("messages")).hasSize(1);
  }

  @Test
  void cancellingAFinishedTurnIs409() throws Exception {
    Api.Response turn = app.api().post(turns(), Api.turn("hello"));
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);

    assertError(app.api().post(turns() + "/" + turn.json().path("turn_id").asText() + "/cancel", ""), 409, "TURN_ENDED");
  }

  @Test
  void aClosedSessionTakesNoTurnIs409() throws Exception {
    Api.Response closed = app.api().post("/v1/sessions/" + sessionId + "/close", "{\"reason\": \"done\"}");
    assertThat(closed.status()).as(closed.body()).isEqualTo(200);
    assertThat(closed.json().path("status").asText()).isEqualTo("closed");

    assertError(app.api().post(turns(), Api.turn("hello again")), 409, "SESSION_CLOSED");
  }

  @Test
  void aSessionIdIsAcceptedOnce() throws Exception {
    String body = "{\"session_id\": \"" + sessionId + "\"}";
    assertError(app.api().post("/v1/sessions", body), 409, "SESSION_EXISTS");
  }

  @Test
  void aBadLastEventIdIs400() throws Exception {
    Api.Response turn = app.api().post(turns(), Api.turn("hello"));
    String events = turns() + "/" + turn.json().path("turn_id").asText() + "/events";
    assertError(app.api().send("GET", events, null, "Accept", "text/event-stream", "Last-Event-ID", "seven"), 400,
        "INVALID_LAST_EVENT_ID");
  }

  @Test
  void anUnknownPathIs404AndAWrongMethodIs405() throws Exception {
    assertError(app.api().get("/no/such/path"), 404, null);
    assertError(app.api().get("/v1/sessions/" + sessionId + "/no-such-thing"), 404, null);
    assertError(app.api().send("PUT", "/v1/sessions/" + sessionId, "{}"), 405, null);
    assertError(app.api().send("DELETE", "/v1/sessions", null), 405, null);
    assertError(app.api().get(turns()), 405, null);
  }

  private String turns() {
    return "/v1/sessions/" + sessionId + "/turns";
  }

  /** The status, the body {"error": {code, message, trace_id}} and nothing of the server's insides. */
  private static void assertError(Api.Response response, int status, String code) {
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    assertThat(response.contentType()).as(response.body()).startsWith("application/json");
    assertThat(response.body()).doesNotContain("at dev.", "Exception", "\tat ");
    JsonNode body = response.json();
    assertThat(body.properties()).as(response.body()).hasSize(1);
    JsonNode error = body.path("error");
    assertThat(error.path("code").asText()).as(response.body()).matches("[A-Z][A-Z0-9_]*");
    if (code != null) {
      assertThat(error.path("code").asText()).as(response.body()).isEqualTo(code);
    }
    assertThat(error.path("message").asText()).as(response.body()).isNotBlank();
    assertThat(error.path("trace_id").asText()).as(response.body()).isNotBlank();
  }
}
