package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.model.TokenUsage;

/** Tokens and cost of a run or a whole turn. */
public record Usage(long promptTokens, long completionTokens, double costUsd) implements CborSerializable {

  public static final Usage NONE = new Usage(0, 0, 0);

  public static Usage of(TokenUsage tokens, double costUsd) {
    return new Usage(tokens.promptTokens(), tokens.completionTokens(), costUsd);
  }

  public long totalTokens() {
    return promptTokens + completionTokens;
  }

  public Usage plus(Usage other) {
    return new Usage(
        promptTokens + other.promptTokens, completionTokens + other.completionTokens, costUsd + other.costUsd);
  }
}
