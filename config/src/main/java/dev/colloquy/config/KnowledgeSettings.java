package dev.colloquy.config;

import java.time.Duration;
import java.util.Optional;

/** Where tenant documents are stored and searched, how they are embedded, and the limits of ingestion. */
public record KnowledgeSettings(
    Store store,
    Qdrant qdrant,
    Embedding embedding,
    Optional<Rerank> rerank,
    Ingestion ingestion) {

  public enum Store {
    LUCENE,
    QDRANT
  }

  public record Qdrant(String host, int port, Optional<String> apiKey, boolean useTls, String collection) {
    @Override
    public String toString() {
      return "Qdrant[host=" + host + ", port=" + port + ", apiKey=" + (apiKey.isPresent() ? "***" : "(none)")
          + ", useTls=" + useTls + ", collection=" + collection + "]";
    }
  }

  /** An OpenAI-compatible embeddings endpoint; without a base URL the in-process MiniLM model runs. */
  public record Embedding(Optional<String> baseUrl, Optional<String> apiKey, String model, int dimensions,
      int batchSize, Duration timeout) {
    @Override
    public String toString() {
      return "Embedding[baseUrl=" + baseUrl.orElse("(in-process MiniLM)") + ", apiKey="
          + (apiKey.isPresent() ? "***" : "(none)") + ", model=" + model + ", dimensions=" + dimensions + "]";
    }
  }

  /**
   * A Cohere-compatible rerank endpoint.
   *
   * @param baseUrl the API root including its version, e.g. {@code https://api.cohere.com/v2}; requests go to
   *     {@code {baseUrl}/rerank}
   * @param apiKey sent as a bearer token when present (self-hosted rerankers often take none)
   * @param model the rerank model, e.g. {@code rerank-english-v3.0}
   * @param timeout for connecting and for the whole request; past it the fused order stands
   */
  public record Rerank(String baseUrl, Optional<String> apiKey, String model, Duration timeout) {
    @Override
    public String toString() {
      return "Rerank[baseUrl=" + baseUrl + ", apiKey=" + (apiKey.isPresent() ? "***" : "(none)") + ", model=" + model + "]";
    }
  }

  /**
   * Guards applied to every uploaded file before and while it is parsed, and how many files are
   * ingested at once.
   *
   * @param maxUploadBytes largest accepted file
   * @param parseTimeout longest a single parse may run
   * @param maxArchiveEntries most entries an archive-based file (DOCX) may hold
   * @param maxArchiveUncompressedBytes most bytes an archive-based file may inflate to, counted while inflating
   * @param maxExtractedChars most characters of text a file may yield
   * @param workers files ingested in parallel, each parsed in a JVM of its own
   * @param parseHeapBytes the heap of a parser JVM: a file that needs more fails (PDF and ZIP inflation included)
   * @param maxQueued accepted files waiting for a worker, at most; more uploads get 429
   * @param maxUploadsPerTenant uploads of one tenant being received at the same time, at most; more get 429
   * @param uploadTimeout longest an upload's body may take to arrive
   */
  public record Ingestion(long maxUploadBytes, Duration parseTimeout, int maxArchiveEntries,
      long maxArchiveUncompressedBytes, long maxExtractedChars, int workers, long parseHeapBytes, int maxQueued,
      int maxUploadsPerTenant, Duration uploadTimeout) {}

  static KnowledgeSettings create(SettingsReader reader) {
    String k = "colloquy.knowledge.";
    Optional<String> embeddingUrl = reader.optionalString(k + "embedding.base-url");
    Optional<String> embeddingModel = reader.optionalString(k + "embedding.model");
    if (embeddingUrl.isPresent() && embeddingModel.isEmpty()) {
      throw reader.invalid(k + "embedding.model", "is required when " + k + "embedding.base-url is set");
    }
    Optional<String> rerankUrl = reader.optionalString(k + "rerank.base-url");
    if (rerankUrl.isPresent() && !rerankUrl.get().startsWith("http://") && !rerankUrl.get().startsWith("https://")) {
      throw reader.invalid(k + "rerank.base-url", "must start with http:// or https://, was '" + rerankUrl.get() + "'");
    }
    return new KnowledgeSettings(
        reader.oneOf(k + "store", Store.class),
        new Qdrant(
            reader.string(k + "qdrant.host"),
            reader.intInRange(k + "qdrant.port", 1, 65535),
            reader.optionalString(k + "qdrant.api-key"),
            reader.bool(k + "qdrant.use-tls"),
            reader.string(k + "qdrant.collection")),
        new Embedding(
            embeddingUrl,
            reader.optionalString(k + "embedding.api-key"),
            embeddingModel.orElse("all-minilm-l6-v2"),
            reader.intInRange(k + "embedding.dimensions", 1, 8192),
            reader.intInRange(k + "embedding.batch-size", 1, 2048),
            reader.positiveDuration(k + "embedding.timeout")),
        rerankUrl.map(url -> new Rerank(
            url,
            reader.optionalString(k + "rerank.api-key"),
            reader.string(k + "rerank.model"),
            reader.positiveDuration(k + "rerank.timeout"))),
        new Ingestion(
            reader.bytes(k + "ingestion.max-upload", 1),
            reader.positiveDuration(k + "ingestion.parse-timeout"),
            reader.intInRange(k + "ingestion.max-archive-entries", 1, 1_000_000),
            reader.bytes(k + "ingestion.max-archive-uncompressed", 1),
            reader.intInRange(k + "ingestion.max-extracted-chars", 1, Integer.MAX_VALUE),
            reader.intInRange(k + "ingestion.workers", 1, 64),
            reader.bytes(k + "ingestion.parse-heap", 32L * 1024 * 1024),
            reader.intInRange(k + "ingestion.max-queued", 0, 100_000),
            reader.intInRange(k + "ingestion.max-uploads-per-tenant", 1, 10_000),
            reader.positiveDuration(k + "ingestion.upload-timeout")));
  }
}
