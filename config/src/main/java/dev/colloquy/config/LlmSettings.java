package dev.colloquy.config;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The OpenAI-compatible chat endpoint. Without a base URL no model is configured and the offline
 * responder answers.
 */
public record LlmSettings(
    Optional<String> baseUrl,
    Optional<String> apiKey,
    String model,
    List<String> extraModels,
    Duration connectTimeout,
    Duration firstTokenTimeout,
    Duration totalTimeout,
    int maxRetries,
    int maxModelsPerTurn,
    int contextTokens,
    Map<String, ModelPrice> prices,
    boolean http2PriorKnowledge,
    int maxIdleConnections) {

  /** The name of the model that answers when no endpoint is configured. */
  public static final String OFFLINE_MODEL = "offline";

  public boolean configured() {
    return baseUrl.isPresent();
  }

  /** The model names a turn may ask for: the endpoint's models, and always the offline responder. */
  public Set<String> modelNames() {
    Set<String> names = new LinkedHashSet<>();
    if (configured()) {
      names.add(model);
      names.addAll(extraModels);
    }
    names.add(OFFLINE_MODEL);
    return names;
  }

  public String defaultModel() {
    return configured() ? model : OFFLINE_MODEL;
  }

  public ModelPrice priceOf(String modelName) {
    return prices.getOrDefault(modelName, ModelPrice.FREE);
  }

  /** Never prints the API key. */
  @Override
  public String toString() {
    return "LlmSettings[baseUrl=" + baseUrl.orElse("(none)") + ", apiKey=" + (apiKey.isPresent() ? "***" : "(none)")
        + ", model=" + model + ", extraModels=" + extraModels + "]";
  }

  static LlmSettings create(SettingsReader reader) {
    Optional<String> baseUrl = reader.optionalString("colloquy.llm.base-url");
    Optional<String> model = reader.optionalString("colloquy.llm.model");
    if (baseUrl.isPresent() && model.isEmpty()) {
      throw reader.invalid("colloquy.llm.model", "is required when colloquy.llm.base-url is set");
    }
    baseUrl.ifPresent(url -> requireHttpUrl(reader, url));
    boolean http2PriorKnowledge = reader.bool("colloquy.llm.http2-prior-knowledge");
    if (http2PriorKnowledge && baseUrl.isPresent() && !baseUrl.get().startsWith("http://")) {
      throw reader.invalid("colloquy.llm.http2-prior-knowledge",
          "applies to an http:// base-url only (over https HTTP/2 is negotiated)");
    }
    return new LlmSettings(
        baseUrl,
        reader.optionalString("colloquy.llm.api-key"),
        model.orElse(OFFLINE_MODEL),
        reader.stringList("colloquy.llm.extra-models"),
        reader.positiveDuration("colloquy.llm.connect-timeout"),
        reader.positiveDuration("colloquy.llm.first-token-timeout"),
        reader.positiveDuration("colloquy.llm.total-timeout"),
        reader.intInRange("colloquy.llm.max-retries", 0, 10),
        reader.intInRange("colloquy.llm.max-models-per-turn", 1, 16),
        reader.intInRange("colloquy.llm.context-tokens", 256, 10_000_000),
        prices(reader),
        http2PriorKnowledge,
        reader.intInRange("colloquy.llm.max-idle-connections", 0, 100_000));
  }

  private static void requireHttpUrl(SettingsReader reader, String url) {
    if (!url.startsWith("http://") && !url.startsWith("https://")) {
      throw reader.invalid("colloquy.llm.base-url", "must start with http:// or https://, was '" + url + "'");
    }
  }

  private static Map<String, ModelPrice> prices(SettingsReader reader) {
    Config prices = reader.subtree("colloquy.llm.prices");
    Map<String, ModelPrice> byModel = new HashMap<>();
    for (String name : prices.root().keySet()) {
      String key = "colloquy.llm.prices.\"" + name + "\"";
      byModel.put(
          name,
          new ModelPrice(
              reader.nonNegativeDouble(key + ".input-per-million"),
              reader.nonNegativeDouble(key + ".output-per-million")));
    }
    return Map.copyOf(byModel);
  }
}
