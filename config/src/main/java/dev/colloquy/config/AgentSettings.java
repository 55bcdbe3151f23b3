package dev.colloquy.config;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The agent's own model calls and its outbound calls: how messages are routed, how long a step may
 * take, which private hosts outbound calls may reach, and how escalation webhooks are delivered.
 *
 * @param intentByModel whether the model routes messages; the offline classifier does when it does
 *     not, when no model is configured, and when the model's answer does not parse
 * @param stepTimeout how long one of the agent's own model calls (routing, memory extraction) may take
 * @param egressAllow hosts and CIDR blocks that outbound calls may reach although they are loopback,
 *     private or link-local addresses
 * @param memory what the agent remembers about a session's user
 * @param tools the tools the model may call while it answers
 * @param gapsByModel whether the gap sub-agent of a character chat asks the model (structured output);
 *     the retrieval confidence rule decides when it does not, when no model is configured, and when
 *     the model's answer does not parse
 */
public record AgentSettings(
    boolean intentByModel,
    Duration stepTimeout,
    List<String> egressAllow,
    Webhooks webhooks,
    Memory memory,
    Tools tools,
    boolean gapsByModel) {

  /**
   * The tool-calling loop of a run.
   *
   * @param enabled whether models are offered tools at all
   * @param maxSteps how many rounds of tool calls one run may make; past them the model is asked
   *     once more, without tools, to answer with what it has
   * @param timeout how long one tool call may take; past it the model is told the call timed out
   * @param dataLookup how {@code structured_data_lookup} calls a tenant's data webhook
   * @param webSearch the web search API {@code web_search} calls; off when its URL is unset
   */
  public record Tools(boolean enabled, int maxSteps, Duration timeout, DataLookup dataLookup, WebSearch webSearch) {

    /** Tools on, 4 rounds, 10 s a call, no web search: the defaults of reference.conf. */
    public static final Tools DEFAULT = new Tools(true, 4, Duration.ofSeconds(10), DataLookup.DEFAULT, WebSearch.OFF);

    /** Tools with the default data lookup and no web search. */
    public Tools(boolean enabled, int maxSteps, Duration timeout) {
      this(enabled, maxSteps, timeout, DataLookup.DEFAULT, WebSearch.OFF);
    }
  }

  /**
   * Calls of a tenant's data webhook by {@code structured_data_lookup}.
   *
   * @param timeout how long the webhook may take to answer; past it the model is told it timed out
   * @param maxResponseBytes the largest answer read; a longer one is refused as too large
   */
  public record DataLookup(Duration timeout, int maxResponseBytes) {

    public static final DataLookup DEFAULT = new DataLookup(Duration.ofSeconds(5), 64 * 1024);
  }

  /**
   * A Tavily-compatible web search API ({@code POST {api_key, query, max_results}} answering
   * {@code {results: [{title, url, content}]}}), which the operator configures for every tenant.
   *
   * @param url the search endpoint; null when web search is off
   * @param apiKey sent in the body as {@code api_key}; null to send none. Never printed.
   * @param maxResults how many results one search asks for
   * @param timeout how long one search may take
   * @param maxResponseBytes the largest answer read
   */
  public record WebSearch(String url, String apiKey, int maxResults, Duration timeout, int maxResponseBytes) {

    public static final WebSearch OFF = new WebSearch(null, null, 5, Duration.ofSeconds(10), 256 * 1024);

    public boolean enabled() {
      return url != null;
    }

    @Override
    public String toString() {
      return "WebSearch[url=" + url + ", apiKey=" + (apiKey == null ? "(none)" : "***") + ", maxResults=" + maxResults
          + ", timeout=" + timeout + ", maxResponseBytes=" + maxResponseBytes + "]";
    }
  }

  /** Settings whose character chats' gaps the model detects. */
  public AgentSettings(boolean intentByModel, Duration stepTimeout, List<String> egressAllow, Webhooks webhooks,
      Memory memory, Tools tools) {
    this(intentByModel, stepTimeout, egressAllow, webhooks, memory, tools, true);
  }

  /** Settings with the default tools. */
  public AgentSettings(boolean intentByModel, Duration stepTimeout, List<String> egressAllow, Webhooks webhooks,
      Memory memory) {
    this(intentByModel, stepTimeout, egressAllow, webhooks, memory, Tools.DEFAULT);
  }

  /** How facts about users are noted after a turn. */
  public enum Extraction { MODEL, OFFLINE, OFF }

  /**
   * @param recall how many of the user's memories most similar to the message join the prompt
   * @param extraction who notes 0 to 5 facts after each answered turn: the model (rules as the
   *     fallback), the rules alone, or nobody
   */
  public record Memory(int recall, Extraction extraction) {}

  /**
   * Delivery of the escalation webhooks from their outbox.
   *
   * @param maxRetries retries after a first failed attempt (any answer but 2xx, or none)
   * @param initialBackoff the wait before the first retry; it doubles with each further one
   * @param maxBackoff the longest wait between two attempts
   * @param timeout how long one attempt may take
   * @param pollInterval how often a node looks for webhooks that are due
   */
  public record Webhooks(int maxRetries, Duration initialBackoff, Duration maxBackoff, Duration timeout,
      Duration pollInterval) {}

  /** The largest answer an outbound call of a tool may be allowed to read. */
  static final long MAX_RESPONSE_SIZE = 16L << 20;

  public AgentSettings {
    egressAllow = List.copyOf(egressAllow);
  }

  static AgentSettings create(SettingsReader reader) {
    String router = reader.string("colloquy.agent.intent-router");
    if (!router.equals("model") && !router.equals("offline")) {
      throw reader.invalid("colloquy.agent.intent-router", "must be model or offline, was '" + router + "'");
    }
    return new AgentSettings(
        router.equals("model"),
        reader.positiveDuration("colloquy.agent.step-timeout"),
        egressAllow(reader),
        new Webhooks(
            reader.intInRange("colloquy.agent.webhooks.max-retries", 0, 20),
            reader.positiveDuration("colloquy.agent.webhooks.initial-backoff"),
            reader.positiveDuration("colloquy.agent.webhooks.max-backoff"),
            reader.positiveDuration("colloquy.agent.webhooks.timeout"),
            reader.positiveDuration("colloquy.agent.webhooks.poll-interval")),
        new Memory(reader.intInRange("colloquy.agent.memory.recall", 0, 50),
            reader.oneOf("colloquy.agent.memory.extraction", Extraction.class)),
        new Tools(reader.bool("colloquy.agent.tools.enabled"),
            reader.intInRange("colloquy.agent.tools.max-steps", 1, 20),
            reader.positiveDuration("colloquy.agent.tools.timeout"),
            new DataLookup(reader.positiveDuration("colloquy.agent.tools.data-lookup.timeout"),
                responseSize(reader, "colloquy.agent.tools.data-lookup.max-response-size")),
            webSearch(reader)),
        gapDetection(reader));
  }

  private static boolean gapDetection(SettingsReader reader) {
    String detector = reader.string("colloquy.agent.gap-detection");
    if (!detector.equals("model") && !detector.equals("rule")) {
      throw reader.invalid("colloquy.agent.gap-detection", "must be model or rule, was '" + detector + "'");
    }
    return detector.equals("model");
  }

  private static WebSearch webSearch(SettingsReader reader) {
    String url = reader.string("colloquy.agent.tools.web-search.url").strip();
    if (!url.isEmpty() && !isHttpUrl(url)) {
      throw reader.invalid("colloquy.agent.tools.web-search.url", "must be an absolute http or https URL, or empty");
    }
    String apiKey = reader.string("colloquy.agent.tools.web-search.api-key").strip();
    return new WebSearch(url.isEmpty() ? null : url, apiKey.isEmpty() ? null : apiKey,
        reader.intInRange("colloquy.agent.tools.web-search.max-results", 1, 20),
        reader.positiveDuration("colloquy.agent.tools.web-search.timeout"),
        responseSize(reader, "colloquy.agent.tools.web-search.max-response-size"));
  }

  private static boolean isHttpUrl(String url) {
    try {
      URI uri = new URI(url);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      return (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private static int responseSize(SettingsReader reader, String key) {
    long size = reader.bytes(key, 1024);
    if (size > MAX_RESPONSE_SIZE) {
      throw reader.invalid(key, "must be at most 16 MiB, was " + size + " bytes");
    }
    return (int) size;
  }

  private static List<String> egressAllow(SettingsReader reader) {
    List<String> entries = new ArrayList<>();
    for (String entry : reader.string("colloquy.agent.egress-allow").split(",")) {
      String trimmed = entry.strip();
      if (trimmed.isEmpty()) {
        continue;
      }
      if (!validEntry(trimmed)) {
        throw reader.invalid("colloquy.agent.egress-allow",
            "must be comma-separated host names, addresses or CIDR blocks such as 10.0.0.0/8, was '" + trimmed + "'");
      }
      entries.add(trimmed);
    }
    return entries;
  }

  private static boolean validEntry(String entry) {
    int slash = entry.indexOf('/');
    if (slash < 0) {
      return entry.matches("[A-Za-z0-9.:\\-\\[\\]]+");
    }
    try {
      int bits = Integer.parseInt(entry.substring(slash + 1));
      String address = entry.substring(0, slash);
      if (!address.matches("[0-9A-Fa-f.:]+")) {
        return false;
      }
      int max = InetAddress.getByName(address).getAddress().length * 8;
      return bits >= 0 && bits <= max;
    } catch (NumberFormatException | UnknownHostException e) {
      return false;
    }
  }
}
