package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code GET /metrics} as Prometheus scrapes it, moving with what the node does. */
class MetricsIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  @Test
  void aStreamedTurnMovesTheStreamTurnTokenAndJournalMetrics() throws Exception {
    PrometheusText before = scrape();
    String sessionId = app.api().openSession();
    List<SseEvent> events;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("How long is the night?"))) {
      events = stream.readToEnd(Duration.ofSeconds(30));
    }
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
    long promptTokens = events.getLast().json().path("usage").path("prompt_tokens").asLong();
    long completionTokens = events.getLast().json().path("usage").path("completion_tokens").asLong();
    assertThat(completionTokens).isPositive();

    // The stream is counted closed when the server side of it ends, which may follow the last frame.
    PrometheusText after = awaitScrape(metrics ->
        metrics.value("colloquy_streams_closed_total") > before.value("colloquy_streams_closed_total"));
    assertThat(after.value("colloquy_streams_opened_total") - before.value("colloquy_streams_opened_total")).isEqualTo(1);
    assertThat(after.value("colloquy_streams_closed_total") - before.value("colloquy_streams_closed_total")).isEqualTo(1);
    assertThat(after.value("colloquy_streams_open")).isEqualTo(before.value("colloquy_streams_open"));
    assertThat(after.value("colloquy_stream_first_frame_seconds_count")).isEqualTo(before.value("colloquy_stream_first_frame_seconds_count") + 1);
    assertThat(after.value("colloquy_stream_first_token_seconds_count")).isEqualTo(before.value("colloquy_stream_first_token_seconds_count") + 1);
    assertThat(after.value("colloquy_tokens_total", "model", TestColloquy.MODEL, "direction", "out")
        - before.value("colloquy_tokens_total", "model", TestColloquy.MODEL, "direction", "out")).isEqualTo(completionTokens);
    assertThat(after.value("colloquy_tokens_total", "model", TestColloquy.MODEL, "direction", "in")
        - before.value("colloquy_tokens_total", "model", TestColloquy.MODEL, "direction", "in")).isEqualTo(promptTokens);
    assertThat(after.value("colloquy_turn_latency_seconds_count", "outcome", "completed")
        - before.value("colloquy_turn_latency_seconds_count", "outcome", "completed")).isEqualTo(1);
    // Opening the session, accepting the turn, journaling its outcome.
    assertThat(after.value("colloquy_journal_write_seconds_count")
        - before.value("colloquy_journal_write_seconds_count")).isGreaterThanOrEqualTo(3);
    assertThat(after.value("colloquy_sessions_active")).isGreaterThanOrEqualTo(1);
    assertThat(after.has("jvm_memory_used_bytes")).isTrue();
    assertThat(after.has("process_cpu_usage")).isTrue();
  }

  @Test
  void anErrorResponseCountsUnderItsCode() throws Exception {
    String unknown = "/v1/sessions/00000000-0000-4000-8000-000000000000";
    double before = scrape().value("colloquy_errors_total", "source", "http", "code", "SESSION_NOT_FOUND");
    Api.Response missing = app.api().get(unknown);
    assertThat(missing.status()).isEqualTo(404);
    Api.Response closed = app.api().post(unknown + "/turns", Api.turn("hello"));
    assertThat(closed.status()).isEqualTo(404);
    assertThat(scrape().value("colloquy_errors_total", "source", "http", "code", "SESSION_NOT_FOUND"))
        .isEqualTo(before + 2);
  }

  @Test
  void aFailedRunCountsUnderItsCode() throws Exception {
    double before = scrape().value("colloquy_errors_total", "source", "turn", "code", "ALL_RUNS_FAILED");
    String sessionId = app.api().openSession();
    Api.Response failed = app.api().post("/v1/sessions/" + sessionId + "/turns",
        Api.turn("hello", List.of(TestColloquy.BROKEN_MODEL)));
    assertThat(failed.status()).as(failed.body()).isEqualTo(502);
    PrometheusText after = scrape();
    assertThat(after.value("colloquy_errors_total", "source", "turn", "code", "ALL_RUNS_FAILED")).isEqualTo(before + 1);
    assertThat(after.value("colloquy_errors_total", "source", "http", "code", "ALL_RUNS_FAILED")).isPositive();
    assertThat(after.value("colloquy_turn_latency_seconds_count", "outcome", "failed")).isPositive();
  }

  @Test
  void metricsAreServedAsPlainText() throws Exception {
    Api.Response metrics = app.api().get("/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.contentType()).startsWith("text/plain");
    assertThat(metrics.body()).contains("# TYPE colloquy_streams_open gauge");
  }

  private static PrometheusText scrape() throws Exception {
    Api.Response metrics = app.api().get("/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    return new PrometheusText(metrics.body());
  }

  private static PrometheusText awaitScrape(Predicate<PrometheusText> condition) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    PrometheusText metrics = scrape();
    while (!condition.test(metrics)) {
      assertThat(System.nanoTime()).as("metrics never matched").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      metrics = scrape();
    }
    return metrics;
  }
}
