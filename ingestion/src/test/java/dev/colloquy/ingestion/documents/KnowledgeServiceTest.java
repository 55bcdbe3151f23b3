package dev.colloquy.ingestion.documents;

import static dev.colloquy.ingestion.parse.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.HashingEmbeddingModel;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.TestLimits;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.chunk.Enrichment;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.parse.Fixtures;
import dev.colloquy.ingestion.search.HybridKnowledgeBase;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import dev.colloquy.ingestion.store.LuceneVectorStore;
import dev.colloquy.ingestion.store.ScoredChunk;
import dev.colloquy.ingestion.store.VectorName;
import dev.colloquy.ingestion.store.VectorStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KnowledgeServiceTest {

  private static final String TENANT = "acme";
  private static final String RETURNS_V1 = """
      # Returns

      You may return shoes within 30 days of delivery.

      # Shipping

      Parcels leave our warehouse within two working days.
      """;
  private static final String RETURNS_V2 = """
      # Returns

      You may return shoes within 60 days of delivery.
      """;

  @TempDir
  Path directory;

  /** One thread: background tasks run in submission order, so waiting for a no-op waits for them all. */
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private final InMemoryDocumentStore documents = new InMemoryDocumentStore();
  private final HashingEmbeddingModel model = new HashingEmbeddingModel(64);
  private VectorStore vectors;

  @AfterEach
  void stop() throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
    if (vectors != null) {
      vectors.close();
    }
  }

  @Test
  void anUploadIsPendingThenReadyAndSearchable() throws Exception {
    KnowledgeService service = service(model, Optional.empty());

    KnowledgeService.Ingestion ingestion = service.ingest(TENANT, "returns.md", utf8(RETURNS_V1));

    assertThat(ingestion.document().status()).isEqualTo(DocumentStatus.PENDING);
    assertThat(ingestion.document().version()).isEqualTo(1);
    assertThat(ingestion.document().fileType()).isEqualTo("md");
    KnowledgeDocument ready = done(ingestion);
    assertThat(ready.status()).isEqualTo(DocumentStatus.READY);
    assertThat(ready.chunkCount()).isEqualTo(2);
    assertThat(service.status(TENANT, ready.id())).contains(ready);
    assertThat(service.list(TENANT)).containsExactly(ready);
    assertThat(search("how many days to return shoes")).first()
        .satisfies(passage -> {
          assertThat(passage.documentId()).isEqualTo(ready.id());
          assertThat(passage.source()).isEqualTo("returns.md");
          assertThat(passage.section()).isEqualTo("Returns");
        });
    assertThat(service.status("globex", ready.id())).isEmpty();
  }

  @Test
  void aCitedPassageIsReadWhileItsDocumentIsSearchable() throws Exception {
    KnowledgeService service = service(model, Optional.empty());
    KnowledgeDocument v1 = done(service.ingest(TENANT, "returns.md", utf8(RETURNS_V1)));

    assertThat(service.passage(TENANT, v1.id(), 1)).get().satisfies(chunk -> {
      assertThat(chunk.sectionHeading()).isEqualTo("Shipping");
      assertThat(chunk.text()).contains("Parcels leave our warehouse within two working days.");
      assertThat(chunk.fileName()).isEqualTo("returns.md");
    });
    assertThat(service.passage(TENANT, v1.id(), 2)).isEmpty();
    assertThat(service.passage("globex", v1.id(), 1)).isEmpty();

    KnowledgeDocument v2 = done(service.ingest(TENANT, "returns.md", utf8(RETURNS_V2)));
    assertThat(service.passage(TENANT, v1.id(), 0)).as("a replaced version's").isEmpty();
    assertThat(service.passage(TENANT, v2.id(), 0)).get().extracting(KnowledgeChunk::text).asString().contains("60 days");

    assertThat(service.delete(TENANT, v2.id())).isTrue();
    assertThat(service.passage(TENANT, v2.id(), 0)).as("a deleted document's, at once").isEmpty();
  }

  @Test
  void aDocumentIsNotSearchableBeforeAllItsChunksAreStored() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch embedding = new CountDownLatch(1);
    EmbeddingModel gated = new GatedModel(model, embedding, release);
    KnowledgeService service = service(gated, Optional.empty());

    KnowledgeService.Ingestion ingestion = service.ingest(TENANT, "returns.md", utf8(RETURNS_V1));
    assertThat(embedding.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(service.status(TENANT, ingestion.document().id())).get()
        .extracting(KnowledgeDocument::status).isEqualTo(DocumentStatus.PROCESSING);
    assertThat(vectors.searchText(TENANT, "shoes", 5)).isEmpty();

    release.countDown();
    assertThat(done(ingestion).status()).isEqualTo(DocumentStatus.READY);
    assertThat(vectors.searchText(TENANT, "shoes", 5)).hasSize(1);
  }

  @Test
  void uploadingAFileNameAgainMakesANewVersionThatReplacesTheOld() throws Exception {
    KnowledgeService service = service(model, Optional.empty());
    KnowledgeDocument v1 = done(service.ingest(TENANT, "returns.md", utf8(RETURNS_V1)));

    KnowledgeDocument v2 = done(service.ingest(TENANT, "returns.md", utf8(RETURNS_V2)));
    idle();

    assertThat(v2.version()).isEqualTo(2);
    assertThat(search("return shoes days")).extracting(Passage::documentId).containsOnly(v2.id());
    assertThat(service.list(TENANT)).extracting(KnowledgeDocument::id).containsExactly(v2.id());
    assertThat(service.status(TENANT, v1.id())).get().extracting(KnowledgeDocument::active).isEqualTo(false);
    assertThat(vectors.count(TENANT, v1.id())).isZero();
  }

  @Test
  void deleteHidesAtOnceAndRemovesTheChunksInTheBackground() throws Exception {
    KnowledgeService service = service(model, Optional.empty());
    KnowledgeDocument ready = done(service.ingest(TENANT, "returns.md", utf8(RETURNS_V1)));

    assertThat(service.delete(TENANT, ready.id())).isTrue();

    assertThat(search("return shoes")).isEmpty();
    assertThat(service.list(TENANT)).isEmpty();
    idle();
    assertThat(vectors.count(TENANT, ready.id())).isZero();
    assertThat(service.delete(TENANT, ready.id())).isFalse();
    assertThat(service.delete(TENANT, "no-such-document")).isFalse();
  }

  @Test
  void aCorruptFileFailsWithItsErrorAndLeavesNoChunks() throws Exception {
    KnowledgeService service = service(model, Optional.empty());
    byte[] pdf = Fixtures.pdf();

    KnowledgeDocument failed = done(service.ingest(TENANT, "broken.pdf", java.util.Arrays.copyOf(pdf, 40)));

    assertThat(failed.status()).isEqualTo(DocumentStatus.FAILED);
    assertThat(failed.error()).get().extracting(KnowledgeDocument.Failure::code).isEqualTo("corrupt_file");
    assertThat(vectors.count(TENANT, failed.id())).isZero();
    assertThat(service.list(TENANT)).containsExactly(failed);
  }

  @Test
  void aFailureAfterChunksWereStoredRemovesThem() throws Exception {
    vectors = new FailingPublish(new LuceneVectorStore(directory, 64));
    KnowledgeService service = new KnowledgeService(
        documents, vectors, IngestionPipeline.create(TestLimits.defaults(), model), Optional.empty(), executor, Clock.systemUTC());

    KnowledgeDocument failed = done(service.ingest(TENANT, "returns.md", utf8(RETURNS_V1)));

    assertThat(failed.status()).isEqualTo(DocumentStatus.FAILED);
    assertThat(failed.error()).get().extracting(KnowledgeDocument.Failure::code).isEqualTo("store_failed");
    assertThat(vectors.count(TENANT, failed.id())).isZero();
  }

  @Test
  void tooLargeAndUnsupportedFilesAreRefusedAtOnce() {
    KnowledgeService service = new KnowledgeService(
        documents, vectors(), IngestionPipeline.create(TestLimits.withMaxUploadBytes(100), model),
        Optional.empty(), executor, Clock.systemUTC());

    assertThatThrownBy(() -> service.ingest(TENANT, "big.txt", new byte[101]))
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(Code.TOO_LARGE));
    assertThatThrownBy(() -> service.ingest(TENANT, "slides.pptx", new byte[10]))
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(Code.UNSUPPORTED_TYPE));
    assertThat(service.list(TENANT)).isEmpty();
  }

  @Test
  void aTextFileOverTheTextCapIsRefusedAtOnce() {
    KnowledgeSettings.Ingestion defaults = TestLimits.defaults();
    KnowledgeSettings.Ingestion smallCap = new KnowledgeSettings.Ingestion(defaults.maxUploadBytes(),
        defaults.parseTimeout(), defaults.maxArchiveEntries(), defaults.maxArchiveUncompressedBytes(), 50,
        defaults.workers(), defaults.parseHeapBytes(), defaults.maxQueued(), defaults.maxUploadsPerTenant(),
        defaults.uploadTimeout());
    KnowledgeService service = new KnowledgeService(documents, vectors(), IngestionPipeline.create(smallCap, model),
        Optional.empty(), executor, Clock.systemUTC());

    assertThatThrownBy(() -> service.ingest(TENANT, "long.txt", utf8("word ".repeat(20))))
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(Code.TOO_LARGE))
        .hasMessageContaining("100 characters of text; the limit is 50");
    assertThat(service.list(TENANT)).isEmpty();
    assertThat(service.ingest(TENANT, "short.txt", utf8("word ".repeat(5))).document().status())
        .isEqualTo(DocumentStatus.PENDING);
  }

  @Test
  void aModelEnricherRewritesSummariesInTheBackgroundOnceSearchable() throws Exception {
    KnowledgeService service = service(model, Optional.of((section, text) ->
        new Enrichment("Model summary of " + section, List.of("q1?", "q2?", "q3?"), "test-chat-model")));

    KnowledgeDocument ready = done(service.ingest(TENANT, "returns.md", utf8(RETURNS_V1)));
    idle();

    List<ScoredChunk> hits = vectors.searchDense(TENANT, VectorName.SUMMARY, model.vector("Model summary of Returns"), 5);
    assertThat(hits).isNotEmpty().allSatisfy(hit -> assertThat(hit.chunk().enrichmentGenerator()).isEqualTo("test-chat-model"));
    assertThat(vectors.count(TENANT, ready.id())).isEqualTo(2);
  }

  private KnowledgeService service(EmbeddingModel embeddings, Optional<dev.colloquy.ingestion.chunk.ChunkEnricher> enricher) {
    return new KnowledgeService(
        documents, vectors(), IngestionPipeline.create(TestLimits.defaults(), embeddings), enricher, executor, Clock.systemUTC());
  }

  private VectorStore vectors() {
    if (vectors == null) {
      vectors = new LuceneVectorStore(directory, 64);
    }
    return vectors;
  }

  private List<Passage> search(String question) throws Exception {
    return new HybridKnowledgeBase(vectors, model, Runnable::run).search(TENANT, question, 5)
        .toCompletableFuture().get(10, TimeUnit.SECONDS).passages();
  }

  private static KnowledgeDocument done(KnowledgeService.Ingestion ingestion) throws Exception {
    return ingestion.completion().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private void idle() throws Exception {
    CompletableFuture.runAsync(() -> {}, executor).get(30, TimeUnit.SECONDS);
  }

  /** Signals when embedding starts, then waits for the test to let it go on. */
  private record GatedModel(EmbeddingModel inner, CountDownLatch started, CountDownLatch release) implements EmbeddingModel {
    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public int dimensions() {
      return inner.dimensions();
    }

    @Override
    public List<float[]> embed(List<String> texts) {
      started.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return inner.embed(texts);
    }
  }

  /** Stores chunks, then fails to publish them. */
  private record FailingPublish(VectorStore inner) implements VectorStore {
    @Override
    public void upsert(String tenantId, List<EmbeddedChunk> chunks) {
      inner.upsert(tenantId, chunks);
    }

    @Override
    public void publish(String tenantId, String documentId, Collection<String> retired) {
      throw new IngestionException(Code.STORE_FAILED, "publish failed");
    }

    @Override
    public void unpublish(String tenantId, String documentId) {
      inner.unpublish(tenantId, documentId);
    }

    @Override
    public void delete(String tenantId, String documentId) {
      inner.delete(tenantId, documentId);
    }

    @Override
    public List<ScoredChunk> searchDense(String tenantId, VectorName vector, float[] query, int limit) {
      return inner.searchDense(tenantId, vector, query, limit);
    }

    @Override
    public List<ScoredChunk> searchText(String tenantId, String query, int limit) {
      return inner.searchText(tenantId, query, limit);
    }

    @Override
    public Optional<KnowledgeChunk> searchableChunk(String tenantId,
        String documentId, int chunkIndex) {
      return inner.searchableChunk(tenantId, documentId, chunkIndex);
    }

    @Override
    public int count(String tenantId, String documentId) {
      return inner.count(tenantId, documentId);
    }

    @Override
    public long searchableCount(String tenantId) {
      return inner.searchableCount(tenantId);
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
