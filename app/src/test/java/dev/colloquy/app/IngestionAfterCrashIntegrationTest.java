package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.colloquy.mockllm.MockLlmServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Documents a node accepted (202) and had not finished ingesting when it was killed (SIGKILL) are
 * ingested after it restarts on the same data directory: none stays pending or processing. The
 * first node's embedding endpoint takes requests and never answers, so its documents are certainly
 * unfinished when it dies; the second node embeds with the mock.
 */
class IngestionAfterCrashIntegrationTest {

  private static final int DOCUMENTS = 3;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  final ChildColloquies children = new ChildColloquies();

  @Test
  void documentsUnfinishedAtAKillAreIngestedAfterTheRestart(@TempDir Path dataDir) throws Exception {
    CountDownLatch released = new CountDownLatch(1);
    AtomicInteger embeddingRequests = new AtomicInteger();
    HttpServer stalled = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    stalled.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    stalled.createContext("/", exchange -> {
      embeddingRequests.incrementAndGet();
      try {
        released.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      exchange.close();
    });
    stalled.start();
    try (MockLlmServer mock = TestColloquy.startMock()) {
      ChildColloquy first = children.start(dataDir, mock, Map.of("COLLOQUY_EMBEDDING_BASE_URL",
          "http://127.0.0.1:" + stalled.getAddress().getPort() + "/v1"));
      List<String> documents = new ArrayList<>();
      for (int i = 0; i < DOCUMENTS; i++) {
        Api.Response accepted = first.api().upload("after-crash-" + i + ".txt",
            ("Document " + i + " after the crash: the warehouse in Lyon ships parcel " + i + " on Mondays.")
                .getBytes(StandardCharsets.UTF_8));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        documents.add(accepted.json().path("document_id").asText());
      }
      ReadTables.await("a document reaches the embedding model", WAIT, () -> embeddingRequests.get() > 0);
      // Two workers for three documents: one waits for a worker, and reads as the contract's processing too.
      for (String document : documents) {
        assertThat(first.api().get("/v1/knowledge/" + document + "/status").json().path("status").asText())
            .isEqualTo("processing");
      }
      first.kill();

      ChildColloquy second = children.start(dataDir, mock, Map.of());
      for (String document : documents) {
        JsonNode status = second.api().settled(document);
        assertThat(status.path("status").asText()).as(status.toString()).isEqualTo("ready");
        assertThat(status.path("chunk_count").asInt()).isPositive();
      }
      try (Stream<Path> left = Files.list(dataDir.resolve("uploads"))) {
        assertThat(left.toList()).as("upload files left once every document is ingested").isEmpty();
      }
    } finally {
      released.countDown();
      stalled.stop(0);
    }
  }
}
