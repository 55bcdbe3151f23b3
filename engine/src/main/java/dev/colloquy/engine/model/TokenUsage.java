package dev.colloquy.engine.model;

/**
 * Tokens a model run consumed: as the provider reported them, or {@code estimated} when Colloquy
 * counted them (cl100k_base) because the provider did not.
 */
public record TokenUsage(long promptTokens, long completionTokens, boolean estimated) {

  public static final TokenUsage NONE = new TokenUsage(0, 0, false);

  /** Tokens as the provider reported them. */
  public TokenUsage(long promptTokens, long completionTokens) {
    this(promptTokens, completionTokens, false);
  }

  /** Tokens counted here: the prompt that was sent and the text that came back. */
  public static TokenUsage counted(java.util.List<ChatMessage> prompt, String completion) {
    return new TokenUsage(TokenCounter.count(prompt), TokenCounter.count(completion), true);
  }

  public long totalTokens() {
    return promptTokens + completionTokens;
  }

  public TokenUsage plus(TokenUsage other) {
    return new TokenUsage(promptTokens + other.promptTokens, completionTokens + other.completionTokens,
        estimated || other.estimated);
  }
}
