package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An explicit cancel ends the turn's stream with turn.cancelled and closes the upstream model call at once. */
class CancelIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.slowMock(), Map.of());

  @Test
  void cancellingARunningTurnEndsItsStreamAndTheUpstreamCallWithinASecond() throws Exception {
    String sessionId = app.api().openSession();
    long cancelledBefore = app.mock().stats().streamsCancelled();

    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Talk for a long time"))) {
      List<SseEvent> started = stream.readUntil(event -> event.event().equals("token"), Duration.ofSeconds(30));
      String turnId = started.getFirst().text("turn_id");

      long cancelledAt = System.nanoTime();
      Api.Response cancel = app.api().post("/v1/sessions/" + sessionId + "/turns/" + turnId + "/cancel", "");

      assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);
      assertThat(cancel.json().path("turn_id").asText()).isEqualTo(turnId);
      long remaining = Duration.ofSeconds(1).toNanos() - (System.nanoTime() - cancelledAt);
      app.mock().stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture()
          .get(Math.max(0, remaining), TimeUnit.NANOSECONDS);

      List<SseEvent> rest = stream.readToEnd(Duration.ofSeconds(10));
      SseEvent last = rest.getLast();
      assertThat(last.event()).isEqualTo("turn.cancelled");
      assertThat(last.text("reason")).isEqualTo("cancelled");
      assertThat(rest).filteredOn(SseEvent::terminal).hasSize(1);
      assertThat(last.number()).isEqualTo(started.getLast().number() + rest.size());
      assertThat(rest).filteredOn(event -> event.event().equals("token")).hasSizeLessThan(TestColloquy.slowMock().tokens() - 1);
    }

    JsonNode session = app.api().session(sessionId);
    assertThat(session.path("running_turn_id").isNull()).as(session.toString()).isTrue();
    assertThat(session.path("messages")).hasSize(1);
    assertThat(session.path("messages").get(0).path("role").asText()).isEqualTo("user");
  }
}
