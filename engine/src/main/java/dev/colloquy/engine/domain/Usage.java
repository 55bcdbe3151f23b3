package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/** Tokens and cost of a run or a whole turn. */
public record Usage(long promptTokens, long completionTokens, double costUsd) implements CborSerializable {

  public static final Usage NONE = new Usage(0, 0, 0);

  public long totalTokens() {
    return promptTokens + completionTokens;
  }

  public Usage plus(Usage other) {
    return new Usage(
        promptTokens + other.promptTokens, completionTokens + other.completionTokens, costUsd + other.costUsd);
  }
}
