package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.ingestion.parse.Bombs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The upload limits as a client meets them: a tenant receives two uploads at a time, one worker
 * ingests with nothing queued behind it, and a parse is killed after 5 s. Refusals come at once,
 * before the body is sent, as 429 with Retry-After and the error body.
 */
class UploadLimitsIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.knowledge.ingestion.max-uploads-per-tenant", 2,
      "colloquy.knowledge.ingestion.workers", 1,
      "colloquy.knowledge.ingestion.max-queued", 0,
      "colloquy.knowledge.ingestion.parse-timeout", "5s",
      "colloquy.llm.model", "offline", "colloquy.llm.extra-models", List.of()));

  @Test
  void aTenantsUploadsBeyondItsCapAreRefusedAtOnce() throws Exception {
    byte[] document = "Returns are accepted within thirty days.\n".repeat(100_000).getBytes(StandardCharsets.UTF_8);
    List<Api.Response> answers = new ArrayList<>();
    ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
    try {
      List<Future<Api.Response>> uploads = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        int n = i;
        uploads.add(clients.submit((Callable<Api.Response>) () -> app.api().upload("returns-" + n + ".txt", document)));
      }
      for (Future<Api.Response> upload : uploads) {
        answers.add(upload.get());
      }
    } finally {
      clients.shutdownNow();
    }

    List<Api.Response> refused = answers.stream().filter(answer -> answer.status() == 429).toList();
    assertThat(refused).as("refused while two were being received").isNotEmpty();
    assertThat(answers).extracting(Api.Response::status).containsOnly(202, 429);
    for (Api.Response answer : refused) {
      JsonNode error = answer.json().path("error");
      assertThat(error.path("code").asText()).isIn("UPLOADS_IN_PROGRESS", "INGEST_QUEUE_FULL");
      assertThat(error.path("message").asText()).isNotBlank();
      assertThat(error.path("trace_id").asText()).hasSize(32);
    }
    assertThat(app.api().get("/ready").status()).isEqualTo(200);
  }

  /** A file that keeps the one worker busy until its parse is killed: meanwhile the backlog is full. */
  @Test
  void anUploadWhileTheBacklogIsFullIsRefusedAndOneAfterwardsIsIngested() throws Exception {
    Api.Response bomb = app.api().upload("fan-out.pdf", Bombs.formFanOutPdf(300));
    assertThat(bomb.status()).as(bomb.body()).isEqualTo(202);

    Api.Response refused = app.api().upload("hours.md", "# Hours\n\nOpen nine to five.".getBytes(StandardCharsets.UTF_8));
    assertThat(refused.status()).as(refused.body()).isEqualTo(429);
    assertThat(refused.json().at("/error/code").asText()).isEqualTo("INGEST_QUEUE_FULL");

    JsonNode killed = app.api().settled(bomb.json().path("document_id").asText());
    assertThat(killed.path("status").asText()).isEqualTo("failed");
    assertThat(killed.path("error_code").asText()).isEqualTo("parse_timeout");

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Api.Response accepted = app.api().upload("hours.md", "# Hours\n\nOpen nine to five.".getBytes(StandardCharsets.UTF_8));
    while (accepted.status() == 429 && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
      accepted = app.api().upload("hours.md", "# Hours\n\nOpen nine to five.".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
    assertThat(app.api().settled(accepted.json().path("document_id").asText()).path("status").asText()).isEqualTo("ready");
  }
}
