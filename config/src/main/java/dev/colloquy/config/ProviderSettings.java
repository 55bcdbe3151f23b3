package dev.colloquy.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One OpenAI-compatible model provider (OpenAI, Gemini's OpenAI endpoint, Ollama, vLLM, …): where it
 * is, its key, the models a turn may ask of it (the first is its default), how long a run may take,
 * what its models cost, and how its own HTTP client connects (HTTP/2 with prior knowledge over plain
 * http://, and how many idle connections it keeps).
 */
public record ProviderSettings(
    String name,
    String baseUrl,
    Optional<String> apiKey,
    List<String> models,
    Duration connectTimeout,
    Duration firstTokenTimeout,
    Duration totalTimeout,
    int maxRetries,
    Map<String, ModelPrice> prices,
    boolean http2PriorKnowledge,
    int maxIdleConnections) {

  public ProviderSettings {
    models = List.copyOf(models);
    prices = Map.copyOf(prices);
    if (models.isEmpty()) {
      throw new IllegalArgumentException("provider " + name + " has no models");
    }
  }

  public String defaultModel() {
    return models.getFirst();
  }

  public ModelPrice priceOf(String model) {
    return prices.getOrDefault(model, ModelPrice.FREE);
  }

  /** Never prints the API key. */
  @Override
  public String toString() {
    return "ProviderSettings[name=" + name + ", baseUrl=" + baseUrl + ", apiKey=" + (apiKey.isPresent() ? "***" : "(none)")
        + ", models=" + models + "]";
  }
}
