package dev.colloquy.config;

import java.time.Duration;

/** The limits every tenant starts with; a tenant's configuration overrides each of them. */
public record LimitsSettings(
    int turnsPerMinute,
    int requestsPerMinute,
    int maxOpenSessions,
    long monthlyTokenBudget,
    int maxConcurrentStreams,
    int maxTokens,
    Duration streamLease) {

  public static final int MAX_RATE_PER_MINUTE = 1_000_000;
  public static final int MAX_OPEN_SESSIONS = 10_000_000;
  public static final int MAX_CONCURRENT_STREAMS = 100_000;
  public static final int MAX_TOKENS = 1_000_000;

  static LimitsSettings create(SettingsReader reader) {
    return new LimitsSettings(
        reader.intInRange("colloquy.limits.turns-per-minute", 1, MAX_RATE_PER_MINUTE),
        reader.intInRange("colloquy.limits.requests-per-minute", 1, MAX_RATE_PER_MINUTE),
        reader.intInRange("colloquy.limits.max-open-sessions", 1, MAX_OPEN_SESSIONS),
        reader.longInRange("colloquy.limits.monthly-token-budget", 0, Long.MAX_VALUE),
        reader.intInRange("colloquy.limits.max-concurrent-streams", 1, MAX_CONCURRENT_STREAMS),
        reader.intInRange("colloquy.limits.max-tokens", 1, MAX_TOKENS),
        reader.positiveDuration("colloquy.limits.stream-lease"));
  }
}
