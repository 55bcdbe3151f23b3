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

  /** A Cohere-compatible rerank endpoint. */
  public record Rerank(String baseUrl, Optional<String> apiKey, String model, Duration timeout) {
    @Override
    public String toString() {
      return "Rerank[baseUrl=" + baseUrl + ", apiKey=" + (apiKey.isPresent() ? "***" : "(none)") + ", model=" + model + "]";
    }
  }

  public record Ingestion(long maxUploadBytes, Duration parseTimeout, int maxArchiveEntries,
      long maxArchiveUncompressedBytes, long maxExtractedChars, int workers) {}

  static KnowledgeSettings create(SettingsReader reader) {
    String k = "colloquy.knowledge.";
    Optional<String> embeddingUrl = reader.optionalString(k + "embedding.base-url");
    Optional<String> embeddingModel = reader.optionalString(k + "embedding.model");
    if (embeddingUrl.isPresent() && embeddingModel.isEmpty()) {
      throw reader.invalid(k + "embedding.model", "is required when " + k + "embedding.base-url is set");
    }
    Optional<String> rerankUrl = reader.optionalString(k + "rerank.base-url");
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
            reader.intInRange(k + "ingestion.workers", 1, 64)));
  }
}
