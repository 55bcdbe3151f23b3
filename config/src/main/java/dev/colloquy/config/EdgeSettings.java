package dev.colloquy.config;

/** The Edge dialect (POST /functions/v1/chat and /embed): its per-session rate and the size of an embedding job. */
public record EdgeSettings(int sessionRequestsPerMinute, int maxEmbedItems) {

  static EdgeSettings create(SettingsReader reader) {
    return new EdgeSettings(
        reader.intInRange("colloquy.edge.session-requests-per-minute", 1, LimitsSettings.MAX_RATE_PER_MINUTE),
        reader.intInRange("colloquy.edge.max-embed-items", 1, 100_000));
  }
}
