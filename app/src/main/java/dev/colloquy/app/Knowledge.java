package dev.colloquy.app;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.model.offline.OfflineResponder;
import dev.colloquy.ingestion.chunk.ChunkEnricher;
import dev.colloquy.ingestion.chunk.ModelEnricher;
import dev.colloquy.ingestion.search.Reranker;
import dev.colloquy.ingestion.search.RetrievalSettings;
import dev.colloquy.ingestion.search.rerank.CohereReranker;
import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.IngestionPipeline;
import dev.colloquy.ingestion.documents.JdbcDocumentStore;
import dev.colloquy.ingestion.documents.KnowledgeService;
import dev.colloquy.ingestion.embed.MiniLmEmbeddingModel;
import dev.colloquy.ingestion.embed.OpenAiCompatibleEmbeddingModel;
import dev.colloquy.ingestion.parse.ParserProcesses;
import dev.colloquy.ingestion.search.HybridKnowledgeBase;
import dev.colloquy.ingestion.store.LuceneVectorStore;
import dev.colloquy.ingestion.store.VectorStore;
import dev.colloquy.ingestion.store.qdrant.QdrantVectorStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tenant documents side of a node: the embedding model, the vector store, hybrid search (the
 * engine's knowledge base) and the document service behind {@code /v1/knowledge}. Blocking work runs
 * on pools of its own, never on the actors' dispatcher.
 */
public final class Knowledge implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Knowledge.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final VectorStore store;
  private final HybridKnowledgeBase search;
  private final KnowledgeService documents;
  private final ExecutorService ingestion;
  private final ExecutorService searching;
  private final ParserProcesses parsers;
  private final String embeddingModel;
  private final EmbeddingModel embeddings;

  private Knowledge(VectorStore store, HybridKnowledgeBase search, KnowledgeService documents,
      ExecutorService ingestion, ExecutorService searching, ParserProcesses parsers, EmbeddingModel embeddings) {
    this.embeddings = embeddings;
    this.embeddingModel = embeddings.name();
    this.store = store;
    this.search = search;
    this.documents = documents;
    this.ingestion = ingestion;
    this.searching = searching;
    this.parsers = parsers;
  }

  /**
   * @param modelEnricher rewrites chunk summaries and questions with the chat model in the background,
   *     when one is configured
   */
  public static Knowledge open(KnowledgeSettings settings, Path dataDir, DataSource dataSource,
      Optional<ChunkEnricher> modelEnricher) {
    EmbeddingModel embeddings = embeddings(settings.embedding());
    VectorStore store = store(settings, dataDir, embeddings.dimensions());
    ExecutorService ingestion = Executors.newFixedThreadPool(settings.ingestion().workers(), named("colloquy-ingest"));
    ExecutorService searching = Executors.newFixedThreadPool(
        Math.max(2, Runtime.getRuntime().availableProcessors()), named("colloquy-search"));
    ParserProcesses parsers = new ParserProcesses(settings.ingestion());
    IngestionPipeline pipeline = IngestionPipeline.create(settings.ingestion(), parsers, embeddings);
    KnowledgeService documents = new KnowledgeService(new JdbcDocumentStore(dataSource), store, pipeline,
        modelEnricher, ingestion, Clock.systemUTC(), uploads(dataDir));
    RetrievalSettings retrieval = RetrievalSettings.defaults();
    Optional<Reranker> reranker = settings.rerank().map(rerank -> new CohereReranker(rerank, retrieval.rerankCandidates()));
    HybridKnowledgeBase search = new HybridKnowledgeBase(store, embeddings, reranker, searching, retrieval);
    return new Knowledge(store, search, documents, ingestion, searching, parsers, embeddings);
  }

  /**
   * Where uploads wait, under the data directory (never the heap); what a previous run left there is
   * resumed or deleted by {@link KnowledgeService#resume}.
   */
  private static Path uploads(Path dataDir) {
    Path uploads = dataDir.resolve("uploads");
    try {
      return Files.createDirectories(uploads);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare the upload directory " + uploads, e);
    }
  }

  /** With a chat model as the default model, chunk summaries and questions are rewritten by it after ingestion. */
  public static Optional<ChunkEnricher> modelEnricher(LlmSettings llm, ModelCatalog models) {
    return models.resolve(models.defaultModel())
        .filter(model -> !model.provider().equals(OfflineResponder.PROVIDER))
        .map(model -> new ModelEnricher(model.chat(), model.model(), llm.totalTimeout(model.provider())));
  }

  private static EmbeddingModel embeddings(KnowledgeSettings.Embedding embedding) {
    if (embedding.baseUrl().isEmpty()) {
      return new MiniLmEmbeddingModel(embedding.batchSize());
    }
    return new OpenAiCompatibleEmbeddingModel(embedding.baseUrl().get(), embedding.apiKey(), embedding.model(),
        embedding.dimensions(), embedding.batchSize(), embedding.timeout());
  }

  private static VectorStore store(KnowledgeSettings settings, Path dataDir, int dimensions) {
    return switch (settings.store()) {
      case LUCENE -> new LuceneVectorStore(dataDir.resolve("lucene"), dimensions);
      case QDRANT -> QdrantVectorStore.connect(settings.qdrant().host(), settings.qdrant().port(),
          settings.qdrant().apiKey().orElse(null), settings.qdrant().useTls(), settings.qdrant().collection(), dimensions);
    };
  }

  private static java.util.concurrent.ThreadFactory named(String prefix) {
    return Thread.ofPlatform().name(prefix + "-", 0).daemon(true).factory();
  }

  HybridKnowledgeBase search() {
    return search;
  }

  /** The embedding model of the knowledge base, which the users' memories share. */
  EmbeddingModel embeddings() {
    return embeddings;
  }

  public KnowledgeService documents() {
    return documents;
  }

  /** The name of the model every chunk is embedded with. */
  public String embeddingModel() {
    return embeddingModel;
  }

  /**
   * Lets queued ingestions and clean-ups finish before the store closes, and never interrupts them:
   * an interrupt in the middle of index I/O would close the index's files under it.
   */
  @Override
  public void close() {
    ingestion.shutdown();
    searching.shutdown();
    try {
      if (!ingestion.awaitTermination(CLOSE_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        LOG.warn("Document ingestion still running after {}; closing the store after its current write",
            CLOSE_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    parsers.close();
    store.close();
  }
}
