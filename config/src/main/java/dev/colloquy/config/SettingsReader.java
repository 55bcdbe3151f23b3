package dev.colloquy.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads typed values from HOCON and turns every failure into a {@link SettingsException} naming the
 * key and its environment variable. The only class that touches raw config.
 */
final class SettingsReader {

  /** HOCON key -> environment variable that overrides it in reference.conf (ColloquySettingsTest checks they agree). */
  static final Map<String, String> ENV_VARS =
      Map.ofEntries(
          Map.entry("colloquy.env", "COLLOQUY_ENV"),
          Map.entry("colloquy.http.host", "COLLOQUY_HTTP_HOST"),
          Map.entry("colloquy.http.port", "COLLOQUY_HTTP_PORT"),
          Map.entry("colloquy.storage.data-dir", "COLLOQUY_DATA_DIR"),
          Map.entry("colloquy.storage.embedded-binaries-dir", "COLLOQUY_EMBEDDED_BINARIES_DIR"),
          Map.entry("colloquy.storage.db.url", "COLLOQUY_DB_URL"),
          Map.entry("colloquy.storage.db.user", "COLLOQUY_DB_USER"),
          Map.entry("colloquy.storage.db.password", "COLLOQUY_DB_PASSWORD"),
          Map.entry("colloquy.llm.base-url", "COLLOQUY_LLM_BASE_URL"),
          Map.entry("colloquy.llm.api-key", "COLLOQUY_LLM_API_KEY"),
          Map.entry("colloquy.llm.model", "COLLOQUY_LLM_MODEL"),
          Map.entry("colloquy.llm.extra-models", "COLLOQUY_LLM_EXTRA_MODELS"),
          Map.entry("colloquy.llm.provider", "COLLOQUY_LLM_PROVIDER"),
          Map.entry("colloquy.llm.default-model", "COLLOQUY_LLM_DEFAULT_MODEL"),
          Map.entry("colloquy.llm.context-tokens", "COLLOQUY_LLM_CONTEXT_TOKENS"),
          Map.entry("colloquy.llm.http2-prior-knowledge", "COLLOQUY_LLM_HTTP2_PRIOR_KNOWLEDGE"),
          Map.entry("colloquy.session.idle-timeout", "COLLOQUY_IDLE_TIMEOUT"),
          Map.entry("colloquy.session.idle-check-interval", "COLLOQUY_IDLE_CHECK_INTERVAL"),
          Map.entry("colloquy.session.passivation-timeout", "COLLOQUY_PASSIVATION_TIMEOUT"),
          Map.entry("colloquy.session.disconnect-grace", "COLLOQUY_DISCONNECT_GRACE"),
          Map.entry("colloquy.session.busy-policy", "COLLOQUY_BUSY_POLICY"),
          Map.entry("colloquy.session.max-turns", "COLLOQUY_MAX_TURNS_PER_SESSION"),
          Map.entry("colloquy.admin.token", "COLLOQUY_ADMIN_TOKEN"),
          Map.entry("colloquy.auth.jwt.secret", "COLLOQUY_JWT_SECRET"),
          Map.entry("colloquy.auth.jwt.jwks-url", "COLLOQUY_JWT_JWKS_URL"),
          Map.entry("colloquy.auth.jwt.audience", "COLLOQUY_JWT_AUDIENCE"),
          Map.entry("colloquy.auth.jwt.issuer", "COLLOQUY_JWT_ISSUER"),
          Map.entry("colloquy.auth.jwt.tenant-claim", "COLLOQUY_JWT_TENANT_CLAIM"),
          Map.entry("colloquy.auth.jwt.default-tenant", "COLLOQUY_JWT_DEFAULT_TENANT"),
          Map.entry("colloquy.shutdown.drain-timeout", "COLLOQUY_DRAIN_TIMEOUT"),
          Map.entry("colloquy.knowledge.store", "COLLOQUY_VECTOR_STORE"),
          Map.entry("colloquy.knowledge.qdrant.host", "COLLOQUY_QDRANT_HOST"),
          Map.entry("colloquy.knowledge.qdrant.port", "COLLOQUY_QDRANT_PORT"),
          Map.entry("colloquy.knowledge.qdrant.api-key", "COLLOQUY_QDRANT_API_KEY"),
          Map.entry("colloquy.knowledge.embedding.base-url", "COLLOQUY_EMBEDDING_BASE_URL"),
          Map.entry("colloquy.knowledge.embedding.api-key", "COLLOQUY_EMBEDDING_API_KEY"),
          Map.entry("colloquy.knowledge.embedding.model", "COLLOQUY_EMBEDDING_MODEL"),
          Map.entry("colloquy.knowledge.embedding.dimensions", "COLLOQUY_EMBEDDING_DIMENSIONS"),
          Map.entry("colloquy.knowledge.rerank.base-url", "COLLOQUY_RERANK_BASE_URL"),
          Map.entry("colloquy.knowledge.rerank.api-key", "COLLOQUY_RERANK_API_KEY"),
          Map.entry("colloquy.knowledge.rerank.model", "COLLOQUY_RERANK_MODEL"),
          Map.entry("colloquy.knowledge.ingestion.max-upload", "COLLOQUY_MAX_UPLOAD"),
          Map.entry("colloquy.limits.turns-per-minute", "COLLOQUY_RATE_LIMIT_TURNS_PER_MINUTE"),
          Map.entry("colloquy.limits.requests-per-minute", "COLLOQUY_RATE_LIMIT_REQUESTS_PER_MINUTE"),
          Map.entry("colloquy.limits.max-open-sessions", "COLLOQUY_MAX_SESSIONS_PER_TENANT"),
          Map.entry("colloquy.limits.monthly-token-budget", "COLLOQUY_MONTHLY_TOKEN_BUDGET"),
          Map.entry("colloquy.limits.max-concurrent-streams", "COLLOQUY_MAX_CONCURRENT_STREAMS"),
          Map.entry("colloquy.limits.max-tokens", "COLLOQUY_MAX_TOKENS"),
          Map.entry("colloquy.cors.origins", "COLLOQUY_CORS_ORIGINS"),
          Map.entry("colloquy.cluster.discovery", "COLLOQUY_CLUSTER_DISCOVERY"),
          Map.entry("colloquy.cluster.contact-points", "COLLOQUY_CLUSTER_CONTACT_POINTS"),
          Map.entry("colloquy.cluster.service-name", "COLLOQUY_CLUSTER_SERVICE_NAME"),
          Map.entry("colloquy.cluster.required-contact-points", "COLLOQUY_CLUSTER_REQUIRED_CONTACT_POINTS"),
          Map.entry("colloquy.cluster.management.enabled", "COLLOQUY_MANAGEMENT_ENABLED"),
          Map.entry("colloquy.cluster.management.host", "COLLOQUY_MANAGEMENT_HOST"),
          Map.entry("colloquy.cluster.management.port", "COLLOQUY_MANAGEMENT_PORT"),
          Map.entry("colloquy.cluster.management.tls.enabled", "COLLOQUY_MANAGEMENT_TLS_ENABLED"),
          Map.entry("colloquy.cluster.management.tls.key-store", "COLLOQUY_MANAGEMENT_TLS_KEY_STORE"),
          Map.entry("colloquy.cluster.management.tls.key-store-password", "COLLOQUY_MANAGEMENT_TLS_KEY_STORE_PASSWORD"),
          Map.entry("colloquy.cluster.management.tls.key-password", "COLLOQUY_MANAGEMENT_TLS_KEY_PASSWORD"),
          Map.entry("colloquy.cluster.management.tls.trust-store", "COLLOQUY_MANAGEMENT_TLS_TRUST_STORE"),
          Map.entry("colloquy.cluster.management.tls.trust-store-password", "COLLOQUY_MANAGEMENT_TLS_TRUST_STORE_PASSWORD"),
          Map.entry("colloquy.cluster.management.tls.require-client-certificate", "COLLOQUY_MANAGEMENT_TLS_REQUIRE_CLIENT_CERTIFICATE"),
          Map.entry("colloquy.cluster.tls.enabled", "COLLOQUY_CLUSTER_TLS_ENABLED"),
          Map.entry("colloquy.cluster.tls.key-store", "COLLOQUY_CLUSTER_TLS_KEY_STORE"),
          Map.entry("colloquy.cluster.tls.key-store-password", "COLLOQUY_CLUSTER_TLS_KEY_STORE_PASSWORD"),
          Map.entry("colloquy.cluster.tls.key-password", "COLLOQUY_CLUSTER_TLS_KEY_PASSWORD"),
          Map.entry("colloquy.cluster.tls.trust-store", "COLLOQUY_CLUSTER_TLS_TRUST_STORE"),
          Map.entry("colloquy.cluster.tls.trust-store-password", "COLLOQUY_CLUSTER_TLS_TRUST_STORE_PASSWORD"),
          Map.entry("colloquy.session.checkpoint.frames", "COLLOQUY_CHECKPOINT_FRAMES"),
          Map.entry("colloquy.session.checkpoint.interval", "COLLOQUY_CHECKPOINT_INTERVAL"),
          Map.entry("colloquy.cors.app-origins", "APP_CORS_ORIGINS"),
          Map.entry("colloquy.edge.session-requests-per-minute", "COLLOQUY_EDGE_SESSION_RATE_LIMIT"),
          Map.entry("colloquy.agent.intent-router", "COLLOQUY_INTENT_ROUTER"),
          Map.entry("colloquy.agent.egress-allow", "COLLOQUY_EGRESS_ALLOW"),
          Map.entry("colloquy.agent.memory.extraction", "COLLOQUY_MEMORY_EXTRACTION"),
          Map.entry("colloquy.agent.tools.enabled", "COLLOQUY_TOOLS_ENABLED"),
          Map.entry("colloquy.agent.tools.max-steps", "COLLOQUY_TOOLS_MAX_STEPS"),
          Map.entry("colloquy.agent.tools.timeout", "COLLOQUY_TOOLS_TIMEOUT"),
          Map.entry("colloquy.agent.tools.data-lookup.timeout", "COLLOQUY_DATA_LOOKUP_TIMEOUT"),
          Map.entry("colloquy.agent.tools.web-search.url", "COLLOQUY_WEB_SEARCH_URL"),
          Map.entry("colloquy.agent.tools.web-search.api-key", "COLLOQUY_WEB_SEARCH_API_KEY"),
          Map.entry("colloquy.agent.gap-detection", "COLLOQUY_GAP_DETECTION"));

  private final Config config;

  SettingsReader(Config config) {
    this.config = config;
  }

  /** Where a named provider's keys live; each has its variables, see {@link #envVarOf}. */
  static final String PROVIDERS = "colloquy.llm.providers";

  /**
   * The variable that sets {@code key}: the map's, or for a key of a named provider
   * ({@code colloquy.llm.providers.NAME.FIELD…}) {@code COLLOQUY_PROVIDER_NAME_FIELD}, which the app
   * reads from the environment (HOCON cannot name a variable after a key it does not know yet).
   */
  static String envVarOf(String key) {
    if (key.startsWith(PROVIDERS + ".")) {
      String[] parts = key.substring(PROVIDERS.length() + 1).split("\\.", 3);
      return parts.length < 2 ? null : "COLLOQUY_PROVIDER_" + variablePart(parts[0]) + "_" + variablePart(parts[1]);
    }
    return ENV_VARS.get(key);
  }

  private static String variablePart(String keyPart) {
    return keyPart.replace("\"", "").replace('-', '_').toUpperCase(java.util.Locale.ROOT);
  }

  boolean has(String key) {
    return config.hasPath(key);
  }

  String string(String key) {
    return read(key, () -> config.getString(key));
  }

  Optional<String> optionalString(String key) {
    if (!config.hasPath(key)) {
      return Optional.empty();
    }
    String value = string(key).strip();
    return value.isEmpty() ? Optional.empty() : Optional.of(value);
  }

  List<String> stringList(String key) {
    return read(key, () -> List.copyOf(config.getStringList(key)));
  }

  /**
   * Names given as a HOCON list or, as an environment variable sets them, one comma-separated string;
   * blanks are left out.
   */
  List<String> names(String key) {
    List<String> raw = read(key, () -> config.getValue(key).valueType() == com.typesafe.config.ConfigValueType.LIST
        ? config.getStringList(key)
        : List.of(config.getString(key).split(",")));
    return raw.stream().map(String::strip).filter(name -> !name.isEmpty()).toList();
  }

  int intInRange(String key, int min, int max) {
    int value = read(key, () -> config.getInt(key));
    if (value < min || value > max) {
      throw invalid(key, "must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  long bytes(String key, long min) {
    return bytes(key, min, Long.MAX_VALUE);
  }

  long bytes(String key, long min, long max) {
    long value = read(key, () -> config.getBytes(key));
    if (value < min) {
      throw invalid(key, "must be at least " + min + " bytes, was " + value);
    }
    if (value > max) {
      throw invalid(key, "must be at most " + max + " bytes, was " + value);
    }
    return value;
  }

  long longInRange(String key, long min, long max) {
    long value = read(key, () -> config.getLong(key));
    if (value < min || value > max) {
      throw invalid(key, "must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  boolean bool(String key) {
    return read(key, () -> config.getBoolean(key));
  }

  double nonNegativeDouble(String key) {
    double value = read(key, () -> config.getDouble(key));
    if (value < 0) {
      throw invalid(key, "must not be negative, was " + value);
    }
    return value;
  }

  Duration positiveDuration(String key) {
    Duration value = read(key, () -> config.getDuration(key));
    if (value.isNegative() || value.isZero()) {
      throw invalid(key, "must be a positive duration such as 30s or 5m, was " + value);
    }
    return value;
  }

  <E extends Enum<E>> E oneOf(String key, Class<E> type) {
    String value = string(key).strip();
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equalsIgnoreCase(value)) {
        return constant;
      }
    }
    throw invalid(
        key,
        "must be one of " + List.of(type.getEnumConstants()).toString().toLowerCase() + ", was '" + value + "'");
  }

  Config subtree(String key) {
    return read(key, () -> config.getConfig(key));
  }

  SettingsException invalid(String key, String problem) {
    return new SettingsException(key, envVarOf(key), problem);
  }

  private <T> T read(String key, java.util.function.Supplier<T> getter) {
    try {
      return getter.get();
    } catch (ConfigException.Missing e) {
      throw invalid(key, "is missing");
    } catch (ConfigException e) {
      throw invalid(key, firstLine(e.getMessage()));
    }
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
