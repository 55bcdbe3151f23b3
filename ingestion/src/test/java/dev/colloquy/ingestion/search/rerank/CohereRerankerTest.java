package dev.colloquy.ingestion.search.rerank;

import static dev.colloquy.ingestion.parse.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.knowledge.RetrievalResult;
import dev.colloquy.ingestion.HashingEmbeddingModel;
import dev.colloquy.ingestion.TestLimits;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.search.HybridKnowledgeBase;
import dev.colloquy.ingestion.search.Reranker;
import dev.colloquy.ingestion.search.RerankerContract;
import dev.colloquy.ingestion.search.RetrievalSettings;
import dev.colloquy.ingestion.store.LuceneVectorStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The contract against {@link FakeCohereServer}, then Cohere's wire format, top_n and each way the call fails. */
class CohereRerankerTest extends RerankerContract {

  private static final String API_KEY = "co-secret-key-123";

  private final FakeCohereServer cohere = FakeCohereServer.start();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(CohereReranker.class);

  @BeforeEach
  void captureLogs() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void stop() {
    logger.detachAppender(logs);
    cohere.close();
  }

  @Override
  protected Reranker reranker() {
    return reranker(8, Duration.ofSeconds(5));
  }

  @Test
  void noDocumentsSendNoRequest() {
    reranker().rerank(QUERY, List.of());

    assertThat(cohere.requests()).isEmpty();
  }

  @Test
  void sendsTheCohereRequestAndMapsEachScoreBackOntoItsDocument() {
    CohereReranker reranker = reranker(8, Duration.ofSeconds(5));

    List<Double> scores = reranker.rerank("Do gift cards expire?", DOCUMENTS).orElseThrow();

    assertThat(scores).containsExactly(0.0, 0.75, 1.0);
    JsonNode request = cohere.requests().getFirst();
    assertThat(request.path("model").asText()).isEqualTo("rerank-english-v3.0");
    assertThat(request.path("query").asText()).isEqualTo("Do gift cards expire?");
    assertThat(request.path("documents")).hasSize(3);
    assertThat(request.path("documents").get(1).asText()).isEqualTo(DOCUMENTS.get(1));
    assertThat(request.path("top_n").asInt()).isEqualTo(3);
    assertThat(cohere.authorizations()).containsExactly("Bearer " + API_KEY);
    assertThat(logs.list).isEmpty();
  }

  @Test
  void documentsBeyondTopNAreUnscoredAndKeepTheirPlaceBelowTheScoredOnes() {
    List<Double> scores = reranker(1, Duration.ofSeconds(5)).rerank("Do gift cards expire?", DOCUMENTS).orElseThrow();

    assertThat(cohere.requests().getFirst().path("top_n").asInt()).isEqualTo(1);
    assertThat(scores).containsExactly(CohereReranker.UNSCORED, CohereReranker.UNSCORED, 1.0);
  }

  @Test
  void anErrorStatusKeepsTheGivenOrderAndLogsAWarningWithoutTheKey() {
    cohere.answer(500, "{\"message\":\"internal error\"}");
    CohereReranker reranker = reranker(8, Duration.ofSeconds(5));

    assertThat(reranker.rerank("Do gift cards expire?", DOCUMENTS)).isEmpty();
    assertThat(logs.list).isNotEmpty().allSatisfy(event -> {
      assertThat(event.getLevel()).isEqualTo(Level.WARN);
      assertThat(event.getFormattedMessage()).contains("HTTP 500").doesNotContain(API_KEY);
    });
  }

  @Test
  void aTimeoutKeepsTheGivenOrder() {
    cohere.hang();
    CohereReranker reranker = reranker(8, Duration.ofMillis(300));

    long started = System.nanoTime();
    Optional<List<Double>> scores = reranker.rerank("Do gift cards expire?", DOCUMENTS);

    assertThat(scores).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    assertThat(logs.list).singleElement().satisfies(event -> assertThat(event.getFormattedMessage()).contains("300 ms"));
  }

  @Test
  void anAnswerOfTheWrongShapeOrNoServerAtAllKeepsTheGivenOrder() {
    cohere.answer(200, "{\"results\":[{\"index\":7,\"relevance_score\":0.9}]}");
    assertThat(reranker(8, Duration.ofSeconds(5)).rerank("q", DOCUMENTS)).isEmpty();

    cohere.answer(200, "<html>not json</html>");
    assertThat(reranker(8, Duration.ofSeconds(5)).rerank("q", DOCUMENTS)).isEmpty();

    String gone = cohere.baseUrl();
    cohere.close();
    CohereReranker unreachable = new CohereReranker(new KnowledgeSettings.Rerank(gone, Optional.empty(), "m", Duration.ofSeconds(2)), 8);
    assertThat(unreachable.rerank("q", DOCUMENTS)).isEmpty();
  }

  @Test
  void theApiKeyStaysOutOfToString() {
    CohereReranker reranker = reranker(8, Duration.ofSeconds(5));

    assertThat(reranker.toString()).contains("rerank-english-v3.0").contains("***").doesNotContain(API_KEY);
  }

  @Test
  void hybridRetrievalStillAnswersInTheFusedOrderWhenTheRerankerHangs(@TempDir Path directory) {
    HashingEmbeddingModel model = new HashingEmbeddingModel(64);
    try (LuceneVectorStore store = new LuceneVectorStore(directory, 64)) {
      IngestionPipeline pipeline = IngestionPipeline.create(TestLimits.defaults(), model);
      store.upsert("acme", pipeline.prepare(new IngestionPipeline.Origin("acme", "doc-1", "policy.md", 1, Instant.now()), utf8("""
          # Returns

          Shoes and clothes can be returned within 30 days of delivery for a full refund.

          # Gift cards

          Gift cards never expire and cannot be exchanged for cash.
          """)));
      store.publish("acme", "doc-1", List.of());
      HybridKnowledgeBase reranked = new HybridKnowledgeBase(
          store, model, Optional.of(reranker(8, Duration.ofSeconds(5))), Runnable::run, RetrievalSettings.defaults());
      assertThat(reranked.searchNow("acme", "Do gift cards expire?", 2).passages().getFirst().section()).isEqualTo("Gift cards");

      cohere.hang();
      HybridKnowledgeBase hanging = new HybridKnowledgeBase(
          store, model, Optional.of(reranker(8, Duration.ofMillis(300))), Runnable::run, RetrievalSettings.defaults());
      RetrievalResult result = hanging.searchNow("acme", "Do gift cards expire?", 2);

      List<String> fusedOrder = new HybridKnowledgeBase(store, model, Runnable::run)
          .searchNow("acme", "Do gift cards expire?", 2).passages().stream().map(Passage::section).toList();
      assertThat(result.passages()).extracting(Passage::section).containsExactlyElementsOf(fusedOrder);
      assertThat(result.confidence()).as("a reranker that fails leaves the dense confidence")
          .isEqualTo(new HybridKnowledgeBase(store, model, Runnable::run).searchNow("acme", "Do gift cards expire?", 2).confidence())
          .isPositive();
    }
  }

  private CohereReranker reranker(int topN, Duration timeout) {
    return new CohereReranker(new KnowledgeSettings.Rerank(cohere.baseUrl(), Optional.of(API_KEY), "rerank-english-v3.0", timeout), topN);
  }
}
