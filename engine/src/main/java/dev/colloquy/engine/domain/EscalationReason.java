package dev.colloquy.engine.domain;

import java.util.Locale;

/** Why a session was handed to a human (seed 004 §7.3, §8.3); the API shows {@link #wireName()}. */
public enum EscalationReason {
  LOW_RETRIEVAL_CONFIDENCE,
  MAX_TURNS_EXCEEDED,
  USER_REQUESTED,
  AGENT_REQUESTED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
