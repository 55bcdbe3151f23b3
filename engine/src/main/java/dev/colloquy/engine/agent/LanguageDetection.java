package dev.colloquy.engine.agent;

import java.util.Optional;

/**
 * Tells which language a user's message is written in (seed 004 §9), as an ISO 639-1 code such as
 * {@code en}; empty when it cannot tell (too short, a language it does not know, or detection off).
 * May block the first time, while it loads its models: call it from a pool meant for blocking work.
 */
public interface LanguageDetection {

  Optional<String> detect(String text);

  /** No detection: every message passes through as it is. */
  static LanguageDetection none() {
    return text -> Optional.empty();
  }
}
