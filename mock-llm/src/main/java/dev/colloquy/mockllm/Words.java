package dev.colloquy.mockllm;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The mock's tokenizer: a word is a maximal run of letters or digits, compared lower-case. Prompt
 * token counts and embeddings both use it, so they are deterministic and easy to predict in tests:
 * "Hello, world!" is two tokens.
 */
final class Words {
  private static final Pattern SEPARATORS = Pattern.compile("[^\\p{L}\\p{N}]+");

  private Words() {}

  static List<String> of(String text) {
    return Arrays.stream(SEPARATORS.split(text.toLowerCase(Locale.ROOT)))
        .filter(word -> !word.isEmpty())
        .toList();
  }

  static int count(String text) {
    return of(text).size();
  }
}
