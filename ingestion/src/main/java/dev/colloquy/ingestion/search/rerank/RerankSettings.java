package dev.colloquy.ingestion.search.rerank;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A Cohere-compatible rerank endpoint.
 *
 * @param baseUrl the API root including its version, e.g. {@code https://api.cohere.com/v2}; requests go to
 *     {@code {baseUrl}/rerank}
 * @param apiKey sent as a bearer token when present (self-hosted rerankers often take none)
 * @param model the rerank model, e.g. {@code rerank-english-v3.0}
 * @param timeout for connecting and for the whole request; past it the fused order stands
 * @param topN how many of the best documents the endpoint scores (seed 004 §7.1 asks for 8); the others
 *     get relevance 0
 */
public record RerankSettings(String baseUrl, Optional<String> apiKey, String model, Duration timeout, int topN) {

  public RerankSettings {
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(apiKey, "apiKey");
    Objects.requireNonNull(model, "model");
    if (!baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
      throw new IllegalArgumentException("baseUrl must start with http:// or https://, was '" + baseUrl + "'");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    if (topN <= 0) {
      throw new IllegalArgumentException("topN must be positive, was " + topN);
    }
  }

  /** Never prints the API key. */
  @Override
  public String toString() {
    return "RerankSettings[baseUrl=" + baseUrl + ", apiKey=" + (apiKey.isPresent() ? "***" : "(none)") + ", model=" + model
        + ", timeout=" + timeout + ", topN=" + topN + "]";
  }
}
