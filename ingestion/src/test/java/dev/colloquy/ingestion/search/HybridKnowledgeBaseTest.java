package dev.colloquy.ingestion.search;

import static dev.colloquy.ingestion.parse.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.knowledge.RetrievalResult;
import dev.colloquy.ingestion.HashingEmbeddingModel;
import dev.colloquy.ingestion.TestLimits;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.store.LuceneVectorStore;
import dev.colloquy.ingestion.store.ScoredChunk;
import dev.colloquy.ingestion.store.VectorStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HybridKnowledgeBaseTest {

  private static final String POLICY = """
      # Returns

      Shoes and clothes can be returned within 30 days of delivery for a full refund.

      # Shipping

      Parcels leave the warehouse within two working days and arrive in three to five days.

      # Gift cards

      Gift cards never expire and cannot be exchanged for cash.
      """;

  @TempDir
  Path directory;

  private final HashingEmbeddingModel model = new HashingEmbeddingModel(64);
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private VectorStore store;

  @BeforeEach
  void index() {
    store = new LuceneVectorStore(directory, 64);
    IngestionPipeline pipeline = IngestionPipeline.create(TestLimits.defaults(), model);
    store.upsert("acme", pipeline.prepare(new IngestionPipeline.Origin("acme", "doc-1", "policy.md", 1, Instant.now()), utf8(POLICY)));
    store.publish("acme", "doc-1", List.of());
  }

  @AfterEach
  void close() {
    executor.shutdownNow();
    store.close();
  }

  @Test
  void aTenantWithoutKnowledgeIsAnsweredAtOnceAndFoundOnceItHasSome() throws Exception {
    java.util.concurrent.atomic.AtomicInteger hops = new java.util.concurrent.atomic.AtomicInteger();
    HybridKnowledgeBase knowledge = new HybridKnowledgeBase(store, model, work -> {
      hops.incrementAndGet();
      executor.execute(work);
    });

    var nothing = knowledge.search("globex", "Do gift cards expire?", 2).toCompletableFuture();
    assertThat(nothing).as("answered on the calling thread").isCompletedWithValue(RetrievalResult.empty());
    assertThat(hops).hasValue(0);

    IngestionPipeline pipeline = IngestionPipeline.create(TestLimits.defaults(), model);
    store.upsert("globex", pipeline.prepare(new IngestionPipeline.Origin("globex", "doc-9", "cards.md", 1,
        Instant.now()), utf8(POLICY)));
    store.publish("globex", "doc-9", List.of());

    RetrievalResult found = knowledge.search("globex", "Do gift cards expire?", 2).toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    assertThat(found.passages()).extracting(Passage::documentId).containsOnly("doc-9");
    assertThat(hops).hasValue(1);
    assertThat(knowledge.search("acme", "Do gift cards expire?", 2).toCompletableFuture().get(10, TimeUnit.SECONDS)
        .passages()).as("another tenant's knowledge").extracting(Passage::documentId).containsOnly("doc-1");
  }

  @Test
  void findsTheRightSectionAndCitesIt() throws Exception {
    RetrievalResult result = new HybridKnowledgeBase(store, model, executor)
        .search("acme", "Do gift cards expire?", 2).toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(result.passages()).hasSize(2);
    Passage top = result.passages().getFirst();
    assertThat(top.section()).isEqualTo("Gift cards");
    assertThat(top.source()).isEqualTo("policy.md");
    assertThat(top.documentId()).isEqualTo("doc-1");
    assertThat(top.chunkIndex()).isEqualTo(2);
    assertThat(top.text()).contains("never expire");
    assertThat(top.score()).isBetween(0.0, 1.0);
    assertThat(result.confidence()).isEqualTo(Confidence.of(result.passages().stream().map(Passage::score).toList(), 8, 0.4), within(1e-9));
  }

  @Test
  void aRerankerOrdersThePassagesAndItsScoresMakeTheConfidence() {
    Reranker shippingFirst = (query, documents) ->
        Optional.of(documents.stream().map(text -> text.contains("Parcels") ? 0.9 : 0.1).toList());
    var knowledge = new HybridKnowledgeBase(store, model, Optional.of(shippingFirst), executor, RetrievalSettings.defaults());

    RetrievalResult result = knowledge.searchNow("acme", "Do gift cards expire?", 3);

    assertThat(result.passages()).extracting(Passage::section).first().isEqualTo("Shipping");
    assertThat(result.passages()).extracting(Passage::score).containsExactly(0.9, 0.1, 0.1);
    assertThat(result.confidence()).isCloseTo(0.9 * 0.85 + 0.1 * 0.15, within(1e-9));
  }

  /** A user pastes a page of text under a question: thousands of distinct words. */
  @Test
  void aPastedThirtyKilobyteMessageStillFindsThePassages() {
    StringBuilder pasted = new StringBuilder("Do gift cards expire? This is what I copied from my account page:");
    for (int i = 0; pasted.length() < 30_000; i++) {
      pasted.append(" order").append(Integer.toString(i, 36)).append("q");
    }

    RetrievalResult result = new HybridKnowledgeBase(store, model, executor).searchNow("acme", pasted.toString(), 3);

    assertThat(result.passages()).extracting(Passage::section).contains("Gift cards");
  }

  @Test
  void theDenseHitsAnswerWhenTheLexicalSearchFails() {
    VectorStore lexicalDown = new DelegatingStore(store) {
      @Override
      public List<ScoredChunk> searchText(String tenantId, String query, int limit) {
        throw new IllegalStateException("too many clauses");
      }
    };

    RetrievalResult result = new HybridKnowledgeBase(lexicalDown, model, executor).searchNow("acme", "Do gift cards expire?", 3);

    assertThat(result.passages()).hasSize(3);
    assertThat(result.passages()).extracting(Passage::section).contains("Gift cards");
    assertThat(result.confidence()).isPositive();
  }

  @Test
  void aRepeatedQuestionIsAnsweredAlikeWithoutEmbeddingItAgain() {
    var knowledge = new HybridKnowledgeBase(store, model, executor);
    RetrievalResult first = knowledge.searchNow("acme", "Do gift cards expire?", 3);
    int callsAfterFirst = model.calls();

    RetrievalResult again = knowledge.searchNow("acme", "Do gift cards expire?", 3);

    assertThat(again).isEqualTo(first);
    assertThat(model.calls()).isEqualTo(callsAfterFirst);
    knowledge.searchNow("acme", "How long does shipping take?", 3);
    assertThat(model.calls()).isEqualTo(callsAfterFirst + 1);
  }

  @Test
  void withoutACacheEveryQuestionIsEmbedded() {
    var knowledge = new HybridKnowledgeBase(store, model, Optional.empty(), executor, RetrievalSettings.defaults(), 0);
    knowledge.searchNow("acme", "Do gift cards expire?", 3);
    int callsAfterFirst = model.calls();

    knowledge.searchNow("acme", "Do gift cards expire?", 3);

    assertThat(model.calls()).isEqualTo(callsAfterFirst + 1);
  }

  @Test
  void otherTenantsAndBlankQueriesFindNothing() {
    var knowledge = new HybridKnowledgeBase(store, model, executor);

    assertThat(knowledge.searchNow("globex", "gift cards", 5)).isEqualTo(RetrievalResult.empty());
    assertThat(knowledge.searchNow("acme", "  ", 5)).isEqualTo(RetrievalResult.empty());
  }

  @Test
  void confidenceFollowsSeed004() {
    assertThat(Confidence.of(List.of(), 8, 0.4)).isZero();
    assertThat(Confidence.of(List.of(1.0, 0.9, 0.8), 8, 0.4)).isCloseTo(0.85 + 0.3 * 0.15, within(1e-9));
    assertThat(Confidence.of(List.of(0.5, 0.3), 8, 0.4)).isCloseTo(0.5 * 0.85 + 0.1 * 0.15, within(1e-9));
    assertThat(Confidence.of(java.util.Collections.nCopies(20, 1.0), 8, 0.4)).isCloseTo(0.85 + 0.8 * 0.15, within(1e-9));
  }

  @Test
  void reciprocalRankFusionSumsOneOverKPlusRank() {
    List<ReciprocalRankFusion.Fused> fused = ReciprocalRankFusion.fuse(List.of(List.of("a", "b", "c"), List.of("c", "a")), 60);

    assertThat(fused).extracting(ReciprocalRankFusion.Fused::id).containsExactly("a", "c", "b");
    assertThat(fused.getFirst().score()).isCloseTo(1.0 / 61 + 1.0 / 62, within(1e-12));
  }
}
