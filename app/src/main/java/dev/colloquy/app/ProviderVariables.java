package dev.colloquy.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValueFactory;
import dev.colloquy.config.SettingsException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code COLLOQUY_PROVIDER_<NAME>_<KEY>} as {@code colloquy.llm.providers.<name>.<key>}: any number of
 * model providers from the environment. HOCON can only read a variable it names, and these are named
 * after providers it does not know, so they are read here. {@code NAME} becomes the provider's name in
 * lower case with {@code _} as {@code -}; {@code MODELS} is comma-separated, {@code PRICES} is
 * {@code model=input/output,…} in US dollars per million tokens. A variable of this prefix with no
 * known key stops the start: a misspelt one would otherwise be ignored.
 */
final class ProviderVariables {

  static final String PREFIX = "COLLOQUY_PROVIDER_";

  /** Longest first, so that no key is taken for the end of another. */
  private static final List<String> KEYS = List.of("HTTP2_PRIOR_KNOWLEDGE", "MAX_IDLE_CONNECTIONS",
      "FIRST_TOKEN_TIMEOUT", "CONNECT_TIMEOUT", "TOTAL_TIMEOUT", "MAX_RETRIES", "BASE_URL", "API_KEY", "MODELS", "PRICES");

  private ProviderVariables() {}

  static Config fromEnvironment() {
    return from(System.getenv());
  }

  static Config from(Map<String, String> environment) {
    Config config = ConfigFactory.empty();
    for (Map.Entry<String, String> variable : new TreeMap<>(environment).entrySet()) {
      if (variable.getKey().startsWith(PREFIX) && !variable.getValue().isBlank()) {
        config = with(config, variable.getKey(), variable.getValue().strip());
      }
    }
    return config;
  }

  private static Config with(Config config, String variable, String value) {
    String rest = variable.substring(PREFIX.length());
    for (String key : KEYS) {
      if (rest.endsWith("_" + key) && rest.length() > key.length() + 1) {
        String provider = rest.substring(0, rest.length() - key.length() - 1).toLowerCase(Locale.ROOT).replace('_', '-');
        String field = key.toLowerCase(Locale.ROOT).replace('_', '-');
        return key.equals("PRICES")
            ? withPrices(config, provider, variable, value)
            : config.withValue(path(provider, field), ConfigValueFactory.fromAnyRef(value));
      }
    }
    throw new SettingsException(variable, null, "is not a provider's setting; a provider's variables are "
        + PREFIX + "<NAME>_" + String.join("|", KEYS));
  }

  private static Config withPrices(Config config, String provider, String variable, String value) {
    for (String price : value.split(",")) {
      String[] modelAndCosts = price.strip().split("=", 2);
      String[] costs = modelAndCosts.length == 2 ? modelAndCosts[1].split("/", 2) : new String[0];
      if (modelAndCosts[0].isBlank() || costs.length != 2) {
        throw new SettingsException("colloquy.llm.providers." + provider + ".prices", variable,
            "must be model=input/output,… in US dollars per million tokens, e.g. gpt-4o-mini=0.15/0.6; was '"
                + value + "'");
      }
      String model = modelAndCosts[0].strip();
      config = config
          .withValue(path(provider, "prices", model, "input-per-million"), ConfigValueFactory.fromAnyRef(costs[0].strip()))
          .withValue(path(provider, "prices", model, "output-per-million"), ConfigValueFactory.fromAnyRef(costs[1].strip()));
    }
    return config;
  }

  private static String path(String provider, String... keys) {
    String[] elements = new String[keys.length + 4];
    elements[0] = "colloquy";
    elements[1] = "llm";
    elements[2] = "providers";
    elements[3] = provider;
    System.arraycopy(keys, 0, elements, 4, keys.length);
    return ConfigUtil.joinPath(elements);
  }
}
