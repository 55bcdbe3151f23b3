package dev.colloquy.engine.tenant;

import dev.colloquy.config.CorsSettings;
import dev.colloquy.config.LimitsSettings;
import dev.colloquy.engine.CborSerializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A tenant's configuration: seed 004 §5.5's fields and Colloquy's own ({@code translate}: whether
 * messages not in the first of {@code languages} are translated into it, and answers back; null in a
 * configuration journaled before it existed, which reads as false; {@code dataWebhookUrl}: where
 * {@code structured_data_lookup} posts the model's queries, absent in a configuration journaled
 * before it existed). The same record is the
 * effective configuration (every field set, optional texts may be null) and a change to it (null
 * means unchanged); {@link #overlay} applies a change. Problems are named by the field's API name.
 */
public record TenantConfig(
    String personaName,
    String personaDescription,
    String systemPrompt,
    String escalationWebhookUrl,
    Double escalationThreshold,
    Double autoResolveThreshold,
    Integer maxTurnsBeforeEscalation,
    List<String> allowedTopics,
    List<String> blockedTopics,
    String defaultModel,
    List<String> fanOutModels,
    Long idleTimeoutSeconds,
    List<String> allowedOrigins,
    Integer turnsPerMinute,
    Integer requestsPerMinute,
    Integer maxOpenSessions,
    Long monthlyTokenBudget,
    Integer maxConcurrentStreams,
    Integer maxTokens,
    List<String> languages,
    Boolean continueAfterFailover,
    String companyName,
    String vertical,
    Boolean translate,
    String dataWebhookUrl)
    implements CborSerializable {

  static final int MAX_NAME = 100;
  static final int MAX_DESCRIPTION = 2_000;
  static final int MAX_SYSTEM_PROMPT = 8_000;
  static final int MAX_URL = 2_048;
  static final int MAX_TOPICS = 100;
  static final int MAX_TOPIC = 100;
  static final int MAX_ORIGINS = 50;
  static final int MAX_LANGUAGES = 50;
  static final int MAX_FAN_OUT = 8;
  static final int MAX_TURNS_BEFORE_ESCALATION = 1_000;
  static final String IDLE_TIMEOUT_FIELD = "idle_timeout_seconds";
  /** The shortest idle timeout a tenant may choose. */
  public static final long MIN_IDLE_TIMEOUT_SECONDS = 60;
  static final long MAX_IDLE_TIMEOUT_SECONDS = 30L * 24 * 3600;

  /** A change that changes nothing. */
  public static final TenantConfig NO_CHANGE = new TenantConfig(null, null, null, null, null, null, null, null, null,
      null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);

  /** What a tenant that has configured nothing gets: the server's settings and seed 004's thresholds. */
  public static TenantConfig defaults(LimitsSettings limits, long idleTimeoutSeconds, String defaultModel) {
    return new TenantConfig(null, null, null, null, 0.55, 0.80, 10, List.of(), List.of(), defaultModel, List.of(),
        idleTimeoutSeconds, List.of(), limits.turnsPerMinute(), limits.requestsPerMinute(), limits.maxOpenSessions(),
        limits.monthlyTokenBudget(), limits.maxConcurrentStreams(), limits.maxTokens(), List.of("en"), false, null,
        null, false, null);
  }

  /** This configuration with every non-null field of {@code change} replacing its own. */
  public TenantConfig overlay(TenantConfig change) {
    return new TenantConfig(
        or(change.personaName, personaName),
        or(change.personaDescription, personaDescription),
        or(change.systemPrompt, systemPrompt),
        or(change.escalationWebhookUrl, escalationWebhookUrl),
        or(change.escalationThreshold, escalationThreshold),
        or(change.autoResolveThreshold, autoResolveThreshold),
        or(change.maxTurnsBeforeEscalation, maxTurnsBeforeEscalation),
        or(change.allowedTopics, allowedTopics),
        or(change.blockedTopics, blockedTopics),
        or(change.defaultModel, defaultModel),
        or(change.fanOutModels, fanOutModels),
        or(change.idleTimeoutSeconds, idleTimeoutSeconds),
        or(change.allowedOrigins, allowedOrigins),
        or(change.turnsPerMinute, turnsPerMinute),
        or(change.requestsPerMinute, requestsPerMinute),
        or(change.maxOpenSessions, maxOpenSessions),
        or(change.monthlyTokenBudget, monthlyTokenBudget),
        or(change.maxConcurrentStreams, maxConcurrentStreams),
        or(change.maxTokens, maxTokens),
        or(change.languages, languages),
        or(change.continueAfterFailover, continueAfterFailover),
        or(change.companyName, companyName),
        or(change.vertical, vertical),
        or(change.translate, translate),
        or(change.dataWebhookUrl, dataWebhookUrl));
  }

  /** Whether an escalation webhook is configured; an empty URL in a change removes it. */
  public boolean hasWebhook() {
    return escalationWebhookUrl != null && !escalationWebhookUrl.isEmpty();
  }

  /** Whether a data webhook is configured for {@code structured_data_lookup}; an empty URL in a change removes it. */
  public boolean hasDataWebhook() {
    return dataWebhookUrl != null && !dataWebhookUrl.isEmpty();
  }

  /** Every invalid value of this effective configuration; {@code models} are the model names a turn may use. */
  public List<ConfigProblem> problems(Set<String> models) {
    List<ConfigProblem> problems = new ArrayList<>();
    text(problems, "persona_name", personaName, MAX_NAME);
    text(problems, "persona_description", personaDescription, MAX_DESCRIPTION);
    text(problems, "system_prompt", systemPrompt, MAX_SYSTEM_PROMPT);
    text(problems, "company_name", companyName, MAX_NAME);
    text(problems, "vertical", vertical, MAX_NAME);
    if (hasWebhook() && !isWebhookUrl(escalationWebhookUrl)) {
      problems.add(new ConfigProblem("escalation_webhook_url",
          "must be an absolute http or https URL of at most " + MAX_URL + " characters"));
    }
    if (hasDataWebhook() && !isWebhookUrl(dataWebhookUrl)) {
      problems.add(new ConfigProblem("data_webhook_url",
          "must be an absolute http or https URL of at most " + MAX_URL + " characters"));
    }
    fraction(problems, "escalation_threshold", escalationThreshold);
    fraction(problems, "auto_resolve_threshold", autoResolveThreshold);
    if (escalationThreshold != null && autoResolveThreshold != null && autoResolveThreshold < escalationThreshold) {
      problems.add(new ConfigProblem("auto_resolve_threshold", "must not be below escalation_threshold"));
    }
    range(problems, "max_turns_before_escalation", maxTurnsBeforeEscalation, 1, MAX_TURNS_BEFORE_ESCALATION);
    topics(problems, "allowed_topics", allowedTopics);
    topics(problems, "blocked_topics", blockedTopics);
    if (defaultModel == null || !models.contains(defaultModel)) {
      problems.add(new ConfigProblem("default_model", "must be one of " + models.stream().sorted().toList()));
    }
    models(problems, models);
    range(problems, IDLE_TIMEOUT_FIELD, idleTimeoutSeconds, MIN_IDLE_TIMEOUT_SECONDS, MAX_IDLE_TIMEOUT_SECONDS);
    origins(problems);
    range(problems, "turns_per_minute", turnsPerMinute, 1, LimitsSettings.MAX_RATE_PER_MINUTE);
    range(problems, "requests_per_minute", requestsPerMinute, 1, LimitsSettings.MAX_RATE_PER_MINUTE);
    range(problems, "max_open_sessions", maxOpenSessions, 1, LimitsSettings.MAX_OPEN_SESSIONS);
    range(problems, "monthly_token_budget", monthlyTokenBudget, 0, Long.MAX_VALUE);
    range(problems, "max_concurrent_streams", maxConcurrentStreams, 1, LimitsSettings.MAX_CONCURRENT_STREAMS);
    range(problems, "max_tokens", maxTokens, 1, LimitsSettings.MAX_TOKENS);
    languages(problems);
    return problems;
  }

  private void models(List<ConfigProblem> problems, Set<String> models) {
    if (fanOutModels == null || fanOutModels.size() > MAX_FAN_OUT
        || new HashSet<>(fanOutModels).size() != fanOutModels.size()
        || !models.containsAll(fanOutModels)) {
      problems.add(new ConfigProblem("fan_out_models",
          "must be at most " + MAX_FAN_OUT + " different names of " + models.stream().sorted().toList()));
    }
  }

  private void origins(List<ConfigProblem> problems) {
    if (allowedOrigins == null || allowedOrigins.size() > MAX_ORIGINS
        || !allowedOrigins.stream().allMatch(o -> o != null && CorsSettings.isOrigin(o))) {
      problems.add(new ConfigProblem("allowed_origins",
          "must be at most " + MAX_ORIGINS + " origins such as https://app.example.com (no path, no *)"));
    }
  }

  private void languages(List<ConfigProblem> problems) {
    if (languages == null || languages.isEmpty() || languages.size() > MAX_LANGUAGES
        || !languages.stream().allMatch(TenantConfig::isLanguageTag)) {
      problems.add(new ConfigProblem("languages",
          "must be 1 to " + MAX_LANGUAGES + " BCP 47 language tags such as en or pt-BR"));
    }
  }

  private static boolean isLanguageTag(String tag) {
    return tag != null && !tag.isBlank()
        && Locale.forLanguageTag(tag).toLanguageTag().equalsIgnoreCase(tag);
  }

  private static boolean isWebhookUrl(String url) {
    if (url.length() > MAX_URL) {
      return false;
    }
    try {
      URI uri = new URI(url);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      return (scheme.equals("https") || scheme.equals("http")) && uri.getHost() != null && uri.getRawUserInfo() == null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private static void text(List<ConfigProblem> problems, String field, String value, int max) {
    if (value != null && value.length() > max) {
      problems.add(new ConfigProblem(field, "must be at most " + max + " characters"));
    }
  }

  private static void fraction(List<ConfigProblem> problems, String field, Double value) {
    if (value == null || value.isNaN() || value < 0 || value > 1) {
      problems.add(new ConfigProblem(field, "must be a number from 0 to 1"));
    }
  }

  private static void range(List<ConfigProblem> problems, String field, Number value, long min, long max) {
    if (value == null || value.longValue() < min || value.longValue() > max) {
      problems.add(new ConfigProblem(field, "must be an integer from " + min + " to " + max));
    }
  }

  private static void topics(List<ConfigProblem> problems, String field, List<String> topics) {
    if (topics == null || topics.size() > MAX_TOPICS
        || !topics.stream().allMatch(t -> t != null && !t.isBlank() && t.length() <= MAX_TOPIC)) {
      problems.add(new ConfigProblem(field,
          "must be at most " + MAX_TOPICS + " topics of 1 to " + MAX_TOPIC + " characters"));
    }
  }

  private static <T> T or(T change, T current) {
    return change != null ? change : current;
  }
}
