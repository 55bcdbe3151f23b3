package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/**
 * Tokens and cost of a run or a whole turn. {@code estimated} when Colloquy counted the tokens
 * itself because the provider reported none (a run cancelled, failed or timed out mid-stream, or a
 * provider that sends no usage); a sum holding an estimate is an estimate. Journaled: events written
 * before the flag existed read as reported.
 */
public record Usage(long promptTokens, long completionTokens, double costUsd, boolean estimated)
    implements CborSerializable {

  public static final Usage NONE = new Usage(0, 0, 0, false);

  /** Usage as the provider reported it. */
  public Usage(long promptTokens, long completionTokens, double costUsd) {
    this(promptTokens, completionTokens, costUsd, false);
  }

  public long totalTokens() {
    return promptTokens + completionTokens;
  }

  public Usage plus(Usage other) {
    return new Usage(promptTokens + other.promptTokens, completionTokens + other.completionTokens,
        costUsd + other.costUsd, estimated || other.estimated);
  }
}
