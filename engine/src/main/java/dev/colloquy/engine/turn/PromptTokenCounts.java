package dev.colloquy.engine.turn;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.colloquy.engine.model.TokenCounter;
import java.time.Duration;

/**
 * The token counts of texts this node's prompts counted lately, by text. A session's history window
 * moves by one turn at a time, so each turn's prompt is mostly texts its session's previous turn counted:
 * the earlier messages and answers, and the rolling summary; counting them again was the largest single
 * item of a node's CPU at 100 streams after the model's stream itself (bench/RESULTS.md). Only the new
 * messages are counted now.
 *
 * <p>Bounded by the characters it holds, and a text not used for {@link #UNUSED} is dropped: the texts
 * are users' messages and answers, which should not stay in memory much longer than their sessions do.
 */
final class PromptTokenCounts {

  /** At most about 16 MB of text (Java strings of Latin text take a byte per character). */
  private static final long MAX_CHARACTERS = 16L << 20;
  static final Duration UNUSED = Duration.ofMinutes(5);

  private static final Cache<String, Long> COUNTS = Caffeine.newBuilder()
      .maximumWeight(MAX_CHARACTERS)
      .weigher((String text, Long count) -> text.length())
      .expireAfterAccess(UNUSED)
      // The cache's upkeep (eviction, expiry) runs on the thread that used it, in small steps: by default
      // Caffeine hands it to the common pool after writes, which woke a common-pool thread for every new
      // text a turn counted (bench/RESULTS.md).
      .executor(Runnable::run)
      .build();

  private PromptTokenCounts() {}

  /** {@link TokenCounter#count} of {@code text}, counted once while it stays in use. */
  static long of(String text) {
    return COUNTS.get(text, TokenCounter::count);
  }
}
