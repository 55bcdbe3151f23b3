package dev.colloquy.engine.model;

/** Tokens a model run consumed, as the provider reported them (or as counted when it did not). */
public record TokenUsage(long promptTokens, long completionTokens) {

  public static final TokenUsage NONE = new TokenUsage(0, 0);

  public long totalTokens() {
    return promptTokens + completionTokens;
  }

  public TokenUsage plus(TokenUsage other) {
    return new TokenUsage(promptTokens + other.promptTokens, completionTokens + other.completionTokens);
  }
}
