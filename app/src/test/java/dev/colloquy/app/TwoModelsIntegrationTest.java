package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One turn fanned out to two models, one of which fails: both runs are streamed and both are journaled. */
class TwoModelsIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  @Test
  void aFailingModelFailsItsRunAndTheOtherCompletesTheTurn() throws Exception {
    String sessionId = app.api().openSession();

    List<SseEvent> events;
    try (SseClient stream = app.api().streamTurn(sessionId,
        Api.turn("Two opinions, please", List.of(TestColloquy.MODEL, TestColloquy.BROKEN_MODEL)))) {
      events = stream.readToEnd(Duration.ofSeconds(30));
    }

    List<String> runIds = new ArrayList<>();
    events.getFirst().json().path("run_ids").forEach(id -> runIds.add(id.asText()));
    assertThat(runIds).hasSize(2).doesNotHaveDuplicates();
    String expectedText = app.mock().settings().text(app.mock().settings().tokens());
    SseEvent completed = single(events, "run.completed");
    SseEvent failed = single(events, "run.failed");
    assertThat(completed.text("run_id")).isEqualTo(runIds.get(0));
    assertThat(completed.text("model")).isEqualTo(TestColloquy.MODEL);
    assertThat(completed.text("text")).isEqualTo(expectedText);
    assertThat(completed.json().path("usage").path("completion_tokens").asInt()).isEqualTo(app.mock().settings().tokens());
    assertThat(failed.text("run_id")).isEqualTo(runIds.get(1));
    assertThat(failed.text("code")).isNotBlank();
    assertThat(failed.text("message")).isNotBlank().doesNotContain("Exception", "at dev.");
    assertThat(events).filteredOn(event -> event.event().equals("token"))
        .allSatisfy(token -> assertThat(token.text("run_id")).isEqualTo(runIds.get(0)));
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
    assertThat(events.getLast().text("text")).isEqualTo(expectedText);
    assertThat(events).filteredOn(SseEvent::terminal).hasSize(1);
    String turnId = events.getFirst().text("turn_id");

    JsonNode messages = app.api().session(sessionId).path("messages");
    assertThat(messages).hasSize(2);
    assertThat(messages.get(1).path("run_id").asText()).isEqualTo(runIds.get(0));
    assertThat(messages.get(1).path("model").asText()).isEqualTo(TestColloquy.MODEL);

    Api.Response journal = app.api().get("/v1/sessions/" + sessionId + "/journal");
    assertThat(journal.status()).as(journal.body()).isEqualTo(200);
    JsonNode turnCompleted = single(journal.json().path("events"), "TurnCompleted");
    assertThat(turnCompleted.path("event").path("turn_id").asText()).isEqualTo(turnId);
    JsonNode runs = turnCompleted.path("event").path("outcome").path("runs");
    assertThat(runs).hasSize(2);
    assertThat(runs.get(0).path("run_id").asText()).isEqualTo(runIds.get(0));
    assertThat(runs.get(0).path("model").asText()).isEqualTo(TestColloquy.MODEL);
    assertThat(runs.get(0).path("status").asText()).isEqualTo("COMPLETED");
    assertThat(runs.get(0).path("text").asText()).isEqualTo(expectedText);
    assertThat(runs.get(1).path("run_id").asText()).isEqualTo(runIds.get(1));
    assertThat(runs.get(1).path("model").asText()).isEqualTo(TestColloquy.BROKEN_MODEL);
    assertThat(runs.get(1).path("status").asText()).isEqualTo("FAILED");
    assertThat(runs.get(1).path("error_code").asText()).isEqualTo(failed.text("code"));
  }

  @Test
  void whenEveryModelFailsTheStreamEndsWithTurnFailedAndJsonGets502() throws Exception {
    String sessionId = app.api().openSession();
    String body = Api.turn("Anyone there?", List.of(TestColloquy.BROKEN_MODEL));

    List<SseEvent> events;
    try (SseClient stream = app.api().streamTurn(sessionId, body)) {
      events = stream.readToEnd(Duration.ofSeconds(30));
    }

    assertThat(events).filteredOn(SseEvent::terminal).hasSize(1);
    assertThat(single(events, "run.failed").text("code")).isNotBlank();
    SseEvent failed = events.getLast();
    assertThat(failed.event()).isEqualTo("turn.failed");
    assertThat(failed.text("code")).isEqualTo("ALL_RUNS_FAILED");
    assertThat(failed.text("message")).isNotBlank().doesNotContain("Exception", "at dev.");
    assertThat(app.api().session(sessionId).path("messages")).hasSize(1);

    Api.Response json = app.api().post("/v1/sessions/" + sessionId + "/turns", body);
    assertThat(json.status()).as(json.body()).isEqualTo(502);
    assertThat(json.json().path("error").path("code").asText()).isEqualTo("ALL_RUNS_FAILED");
    assertThat(json.json().path("error").path("trace_id").asText()).isNotBlank();
    assertThat(json.body()).doesNotContain("Exception", "at dev.");
  }

  private static SseEvent single(List<SseEvent> events, String name) {
    List<SseEvent> matching = events.stream().filter(event -> event.event().equals(name)).toList();
    assertThat(matching).as("%s events in %s", name, events).hasSize(1);
    return matching.getFirst();
  }

  private static JsonNode single(JsonNode journalEvents, String type) {
    List<JsonNode> matching = new ArrayList<>();
    journalEvents.forEach(event -> {
      if (event.path("type").asText().equals(type)) {
        matching.add(event);
      }
    });
    assertThat(matching).as("%s in the journal %s", type, journalEvents).hasSize(1);
    return matching.getFirst();
  }
}
