package dev.colloquy.ingestion.documents;

import static dev.colloquy.ingestion.parse.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.ingestion.HashingEmbeddingModel;
import dev.colloquy.ingestion.TestLimits;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.store.LuceneVectorStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-ingesting and deleting while the threads doing it are interrupted, then shutting their pool
 * down at once, as a command line or a stopping node may: no write fails and the index stays
 * healthy (interrupting NIO I/O used to close the index under its writer).
 */
class ReingestUnderInterruptsTest {

  private static final String TENANT = "default";

  @TempDir
  Path directory;

  private final HashingEmbeddingModel model = new HashingEmbeddingModel(64);
  private final List<Thread> workers = new CopyOnWriteArrayList<>();

  @RepeatedTest(20)
  void reingestionAndDeletionSurviveInterruptsAndAnAbruptShutdown() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(4, task -> {
      Thread worker = new Thread(task, "ingest-under-test");
      workers.add(worker);
      return worker;
    });
    InMemoryDocumentStore documents = new InMemoryDocumentStore();
    LuceneVectorStore vectors = new LuceneVectorStore(directory, 64);
    KnowledgeService service = service(documents, vectors, executor);
    KnowledgeDocument first = service.ingest(TENANT, "handbook.md", utf8(handbook(1))).completion()
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(first.status()).isEqualTo(DocumentStatus.READY);

    AtomicBoolean interrupting = new AtomicBoolean(true);
    Thread interrupter = Thread.ofPlatform().start(() -> {
      while (interrupting.get()) {
        workers.forEach(Thread::interrupt);
        LockSupport.parkNanos(200_000);
      }
    });
    List<CompletableFuture<KnowledgeDocument>> uploads = List.of(
        service.ingest(TENANT, "handbook.md", utf8(handbook(2))).completion().toCompletableFuture(),
        service.ingest(TENANT, "faq.md", utf8(handbook(3))).completion().toCompletableFuture(),
        service.ingest(TENANT, "handbook.md", utf8(handbook(4))).completion().toCompletableFuture());
    service.delete(TENANT, first.id());
    for (CompletableFuture<KnowledgeDocument> upload : uploads) {
      KnowledgeDocument done = upload.get(30, TimeUnit.SECONDS);
      assertThat(done.error().map(KnowledgeDocument.Failure::code)).as("%s", done).isNotEqualTo(Optional.of("store_failed"));
      service.delete(TENANT, done.id());
    }
    executor.shutdownNow();
    assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    interrupting.set(false);
    interrupter.join();
    vectors.close();

    LuceneVectorStore reopened = new LuceneVectorStore(directory, 64);
    ExecutorService fresh = Executors.newSingleThreadExecutor();
    try {
      KnowledgeDocument again = service(documents, reopened, fresh)
          .ingest(TENANT, "handbook.md", utf8(handbook(5))).completion().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(again.status()).isEqualTo(DocumentStatus.READY);
      assertThat(reopened.count(TENANT, again.id())).isEqualTo(again.chunkCount());
      assertThat(reopened.searchText(TENANT, "refunds edition 5", 5)).isNotEmpty();
    } finally {
      fresh.shutdown();
      reopened.close();
    }
  }

  private KnowledgeService service(InMemoryDocumentStore documents, LuceneVectorStore vectors, ExecutorService executor) {
    return new KnowledgeService(documents, vectors, IngestionPipeline.create(TestLimits.defaults(), model),
        Optional.empty(), executor, Clock.systemUTC());
  }

  private static String handbook(int edition) {
    return """
        # Refunds

        Edition %d. Refunds are paid within 14 days of the returned parcel's arrival.

        # Shipping

        Parcels leave the warehouse within two working days.
        """.formatted(edition);
  }
}
