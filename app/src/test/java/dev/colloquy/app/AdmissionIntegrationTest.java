package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node that starts one turn at a time and lets one more request wait for half a second: a new turn
 * beyond that is refused with 503 OVERLOADED before anything is accepted or sent to the model, and
 * the turn already accepted goes on to complete; once it has its first token, new turns are taken again.
 * The seed dialects' turns share the same bound, and are refused in their own shape.
 */
class AdmissionIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(
      TestColloquy.fastMock().withTokens(8).withDelays(Duration.ofSeconds(3), Duration.ofMillis(20)),
      Map.of("colloquy.admission.max-starting", 1, "colloquy.admission.queue-size", 1,
          "colloquy.admission.queue-timeout", "500ms"));

  @Test
  void anOverloadedNodeRefusesNewTurnsEarlyAndCompletesTheTurnItAccepted() throws Exception {
    String first = app.api().openSession();
    String second = app.api().openSession();

    long requestsBefore = app.mock().stats().requests();
    try (SseClient accepted = app.api().streamTurn(first, Api.turn("The first question"))) {
      List<SseEvent> started = accepted.readUntil(event -> event.event().equals("turn.started"), Duration.ofSeconds(30));
      // The accepted turn has asked the model, which takes 3 s to its first token: the one place is taken.
      app.mock().stats().whenRequests(requestsBefore + 1).toCompletableFuture().get(30, TimeUnit.SECONDS);

      Credentialed.Reply refused = Credentialed.send(app.colloquy().baseUrl(), "POST",
          "/v1/sessions/" + second + "/turns", Api.turn("The second question"), "Accept", "text/event-stream",
          "Authorization", "Bearer " + app.api().apiKey());

      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
          seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
      Credentialed.assertErrorBody(refused, "OVERLOADED", "a new turn past the queue's wait");
      assertThat(app.mock().stats().requests()).isEqualTo(requestsBefore + 1);
      assertThat(app.api().session(second).path("messages")).isEmpty();

      List<SseEvent> rest = accepted.readToEnd(Duration.ofSeconds(30));
      assertThat(rest.getLast().event()).isEqualTo("turn.completed");
      assertThat(started.getFirst().text("turn_id")).isEqualTo(rest.getLast().text("turn_id"));
    }

    Api.Response admitted = app.api().post("/v1/sessions/" + second + "/turns", Api.turn("The second question"));
    assertThat(admitted.status()).as(admitted.body()).isEqualTo(200);
    assertThat(admitted.json().path("status").asText()).isEqualTo("completed");
  }

  @Test
  void aCompletionOfTheOpenAiDialectIsRefusedInItsShapeWhileTheOnePlaceIsTaken() throws Exception {
    String session = app.api().openSession();
    String completion = "{\"model\": \"" + TestColloquy.MODEL + "\", \"messages\": [{\"role\": \"user\", "
        + "\"content\": \"The dialect's question\"}]}";

    long requestsBefore = app.mock().stats().requests();
    try (SseClient accepted = app.api().streamTurn(session, Api.turn("The canonical question"))) {
      accepted.readUntil(event -> event.event().equals("turn.started"), Duration.ofSeconds(30));
      app.mock().stats().whenRequests(requestsBefore + 1).toCompletableFuture().get(30, TimeUnit.SECONDS);

      Credentialed.Reply refused = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions",
          completion, "Authorization", "Bearer " + app.api().apiKey());

      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
          seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
      assertThat(refused.json().path("error").path("code").asText()).as(refused.body()).isEqualTo("overloaded");
      assertThat(refused.json().path("error").path("type").asText()).isEqualTo("server_error");
      assertThat(refused.json().path("error").path("message").asText()).isNotBlank();
      assertThat(refused.json().path("error").has("trace_id")).as("OpenAI's shape, not the canonical one").isFalse();
      assertThat(refused.headers().firstValue("X-Session-Id")).as("no session opened").isEmpty();
      assertThat(app.mock().stats().requests()).isEqualTo(requestsBefore + 1);

      List<SseEvent> rest = accepted.readToEnd(Duration.ofSeconds(30));
      assertThat(rest.getLast().event()).isEqualTo("turn.completed");
    }

    Credentialed.Reply admitted = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions",
        completion, "Authorization", "Bearer " + app.api().apiKey());
    assertThat(admitted.status()).as(admitted.body()).isEqualTo(200);
    assertThat(admitted.json().path("choices").path(0).path("message").path("content").asText()).isNotBlank();
  }
}
