package dev.colloquy.engine.domain;

import java.util.Locale;

/**
 * What a user's message asks of the agent (seed 004 §8.1): small talk, a question for the tenant's
 * knowledge, or something outside the tenant's topics. The journal keeps the constant's name; the
 * API shows {@link #wireName()}.
 */
public enum Intent {
  CONVERSATIONAL,
  DOMAIN_QUERY,
  OUT_OF_SCOPE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The intent of a wire name such as {@code domain_query}, ignoring case and surrounding punctuation. */
  public static java.util.Optional<Intent> parse(String text) {
    String word = text == null ? "" : text.strip().toLowerCase(Locale.ROOT).replaceAll("^[^a-z_]+|[^a-z_]+$", "");
    for (Intent intent : values()) {
      if (intent.wireName().equals(word)) {
        return java.util.Optional.of(intent);
      }
    }
    return java.util.Optional.empty();
  }
}
