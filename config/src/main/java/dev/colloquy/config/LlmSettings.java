package dev.colloquy.config;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The model providers a turn may run on. The endpoint of {@code colloquy.llm.base-url} (the
 * {@code COLLOQUY_LLM_*} variables) is the first provider, named by {@code colloquy.llm.provider};
 * the blocks of {@code colloquy.llm.providers} follow in the order of their names. With none, only the
 * offline responder answers.
 */
public record LlmSettings(
    List<ProviderSettings> providers,
    String defaultModel,
    Duration firstTokenTimeout,
    Duration totalTimeout,
    int maxModelsPerTurn,
    int contextTokens) {

  /**
   * The name of the model, and of the provider, that answers when no endpoint is configured.
   * {@code defaultModel} is the model a turn runs when neither it nor its tenant names one.
   */
  public static final String OFFLINE_MODEL = "offline";

  /** What a provider may be called: it names the provider in {@code provider/model} and in usage. */
  private static final Pattern PROVIDER_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

  public LlmSettings {
    providers = List.copyOf(providers);
  }

  public boolean configured() {
    return !providers.isEmpty();
  }

  public Optional<ProviderSettings> provider(String name) {
    return providers.stream().filter(provider -> provider.name().equals(name)).findFirst();
  }

  /** What a run of {@code model} on {@code provider} costs; unpriced models and the offline responder are free. */
  public ModelPrice priceOf(String provider, String model) {
    return provider(provider).map(p -> p.priceOf(model)).orElse(ModelPrice.FREE);
  }

  /** How long a run on {@code provider} may wait for its first token; the offline responder has the general limit. */
  public Duration firstTokenTimeout(String provider) {
    return provider(provider).map(ProviderSettings::firstTokenTimeout).orElse(firstTokenTimeout);
  }

  public Duration totalTimeout(String provider) {
    return provider(provider).map(ProviderSettings::totalTimeout).orElse(totalTimeout);
  }

  static LlmSettings create(SettingsReader reader) {
    List<ProviderSettings> providers = new ArrayList<>();
    Optional<ProviderSettings> endpoint = endpoint(reader);
    endpoint.ifPresent(providers::add);
    for (String name : new TreeSet<>(reader.has(SettingsReader.PROVIDERS)
        ? reader.subtree(SettingsReader.PROVIDERS).root().keySet() : java.util.Set.of())) {
      ProviderSettings named = named(reader, name);
      if (providers.stream().anyMatch(p -> p.name().equals(name))) {
        throw reader.invalid("colloquy.llm.provider",
            "names the endpoint of colloquy.llm.base-url '" + name + "', which colloquy.llm.providers names too");
      }
      providers.add(named);
    }
    return new LlmSettings(
        providers,
        reader.optionalString("colloquy.llm.default-model").orElseGet(() -> defaultModel(endpoint, providers)),
        reader.positiveDuration("colloquy.llm.first-token-timeout"),
        reader.positiveDuration("colloquy.llm.total-timeout"),
        reader.intInRange("colloquy.llm.max-models-per-turn", 1, 16),
        reader.intInRange("colloquy.llm.context-tokens", 256, 10_000_000));
  }

  /**
   * The model a turn runs when neither it nor its tenant names one, unless
   * {@code colloquy.llm.default-model} says: the endpoint's model by its plain name, as it was always
   * named; else the first provider's first model as {@code provider/model}; else the offline responder.
   */
  private static String defaultModel(Optional<ProviderSettings> endpoint, List<ProviderSettings> providers) {
    if (endpoint.isPresent()) {
      return endpoint.get().defaultModel();
    }
    return providers.isEmpty() ? OFFLINE_MODEL : providers.getFirst().name() + "/" + providers.getFirst().defaultModel();
  }

  /** The endpoint of {@code colloquy.llm.base-url}, as it was configured before there were several. */
  private static Optional<ProviderSettings> endpoint(SettingsReader reader) {
    Optional<String> baseUrl = reader.optionalString("colloquy.llm.base-url");
    Optional<String> model = reader.optionalString("colloquy.llm.model");
    if (baseUrl.isEmpty()) {
      return Optional.empty();
    }
    if (model.isEmpty()) {
      throw reader.invalid("colloquy.llm.model", "is required when colloquy.llm.base-url is set");
    }
    requireHttpUrl(reader, "colloquy.llm.base-url", baseUrl.get());
    String name = providerName(reader, "colloquy.llm.provider", reader.string("colloquy.llm.provider").strip());
    List<String> models = new ArrayList<>(List.of(model.get()));
    reader.names("colloquy.llm.extra-models").stream().filter(extra -> !models.contains(extra)).forEach(models::add);
    return Optional.of(new ProviderSettings(name, baseUrl.get(), reader.optionalString("colloquy.llm.api-key"), models,
        reader.positiveDuration("colloquy.llm.connect-timeout"),
        reader.positiveDuration("colloquy.llm.first-token-timeout"),
        reader.positiveDuration("colloquy.llm.total-timeout"),
        reader.intInRange("colloquy.llm.max-retries", 0, 10),
        prices(reader, "colloquy.llm.prices"),
        http2PriorKnowledge(reader, "colloquy.llm.http2-prior-knowledge", name, baseUrl.get()),
        reader.intInRange("colloquy.llm.max-idle-connections", 0, 100_000)));
  }

  /** A block of {@code colloquy.llm.providers}; what it leaves out comes from {@code colloquy.llm}. */
  private static ProviderSettings named(SettingsReader reader, String name) {
    String key = SettingsReader.PROVIDERS + "." + name;
    providerName(reader, key, name);
    String baseUrl = reader.optionalString(key + ".base-url")
        .or(() -> reader.optionalString("colloquy.llm.well-known-base-urls." + name))
        .orElseThrow(() -> reader.invalid(key + ".base-url",
            "is required for a provider other than " + wellKnown(reader)));
    requireHttpUrl(reader, key + ".base-url", baseUrl);
    if (!reader.has(key + ".models") || reader.names(key + ".models").isEmpty()) {
      throw reader.invalid(key + ".models", "must name at least one model, e.g. [gpt-4o-mini] or \"gpt-4o-mini,gpt-4o\"");
    }
    return new ProviderSettings(name, baseUrl, reader.optionalString(key + ".api-key"),
        reader.names(key + ".models").stream().distinct().toList(),
        reader.positiveDuration(own(reader, key, "connect-timeout")),
        reader.positiveDuration(own(reader, key, "first-token-timeout")),
        reader.positiveDuration(own(reader, key, "total-timeout")),
        reader.intInRange(own(reader, key, "max-retries"), 0, 10),
        reader.has(key + ".prices") ? prices(reader, key + ".prices") : Map.of(),
        http2PriorKnowledge(reader, own(reader, key, "http2-prior-knowledge"), name, baseUrl),
        reader.intInRange(own(reader, key, "max-idle-connections"), 0, 100_000));
  }

  /** The provider's own key when it sets it, else the one of {@code colloquy.llm}. */
  private static String own(SettingsReader reader, String providerKey, String field) {
    return reader.has(providerKey + "." + field) ? providerKey + "." + field : "colloquy.llm." + field;
  }

  private static String wellKnown(SettingsReader reader) {
    return reader.has("colloquy.llm.well-known-base-urls")
        ? new TreeSet<>(reader.subtree("colloquy.llm.well-known-base-urls").root().keySet()).toString()
        : "[]";
  }

  private static String providerName(SettingsReader reader, String key, String name) {
    if (!PROVIDER_NAME.matcher(name).matches() || name.equals(OFFLINE_MODEL)) {
      throw reader.invalid(key, "a provider's name must be lower-case letters, digits and '-' (not 'offline'), was '"
          + name + "'");
    }
    return name;
  }

  /**
   * HTTP/2 with prior knowledge is spoken over plain http:// only; over https it is negotiated. A
   * provider that inherits it from {@code colloquy.llm} is named, so that its own key can turn it off.
   */
  private static boolean http2PriorKnowledge(SettingsReader reader, String key, String provider, String baseUrl) {
    boolean priorKnowledge = reader.bool(key);
    if (priorKnowledge && !baseUrl.startsWith("http://")) {
      throw reader.invalid(key, "applies to an http:// base-url only (over https HTTP/2 is negotiated); provider '"
          + provider + "' is at " + baseUrl);
    }
    return priorKnowledge;
  }

  private static void requireHttpUrl(SettingsReader reader, String key, String url) {
    if (!url.startsWith("http://") && !url.startsWith("https://")) {
      throw reader.invalid(key, "must start with http:// or https://, was '" + url + "'");
    }
  }

  private static Map<String, ModelPrice> prices(SettingsReader reader, String key) {
    Config prices = reader.subtree(key);
    Map<String, ModelPrice> byModel = new HashMap<>();
    for (String name : prices.root().keySet()) {
      String model = key + ".\"" + name + "\"";
      byModel.put(
          name,
          new ModelPrice(
              reader.nonNegativeDouble(model + ".input-per-million"),
              reader.nonNegativeDouble(model + ".output-per-million")));
    }
    return Map.copyOf(byModel);
  }
}
