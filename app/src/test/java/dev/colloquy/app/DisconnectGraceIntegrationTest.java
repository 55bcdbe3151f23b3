package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A client that goes away and does not come back within the grace gets its turn cancelled as disconnected. */
class DisconnectGraceIntegrationTest {

  private static final Duration GRACE = Duration.ofSeconds(1);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.slowMock(), Map.of("colloquy.session.disconnect-grace", "1s"));

  @Test
  void aTurnWithNoClientAfterTheGraceIsCancelledAsDisconnected() throws Exception {
    String sessionId = app.api().openSession();
    long cancelledBefore = app.mock().stats().streamsCancelled();
    String turnId;
    long disconnectedAt;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Talk while I leave"))) {
      turnId = stream.readUntil(event -> event.event().equals("token"), Duration.ofSeconds(30)).getFirst().text("turn_id");
      disconnectedAt = System.nanoTime();
    }

    app.mock().stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
    Duration upstreamOpen = Duration.ofNanos(System.nanoTime() - disconnectedAt);

    assertThat(upstreamOpen).as("the turn waited for the client to come back").isGreaterThanOrEqualTo(GRACE.minusMillis(100));
    List<SseEvent> outcome;
    try (SseClient joined = app.api().joinTurn(sessionId, turnId, null)) {
      outcome = joined.readToEnd(Duration.ofSeconds(10));
    }
    assertThat(outcome.getLast().event()).isEqualTo("turn.cancelled");
    assertThat(outcome.getLast().text("reason")).isEqualTo("disconnected");
    assertThat(outcome).filteredOn(SseEvent::terminal).hasSize(1);
    assertThat(app.api().session(sessionId).path("running_turn_id").isNull()).isTrue();
  }
}
