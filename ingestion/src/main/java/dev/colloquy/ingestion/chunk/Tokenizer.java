package dev.colloquy.ingestion.chunk;

import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.IntArrayList;
import dev.colloquy.engine.model.TokenCounter;

/**
 * Counts cl100k_base tokens. Text is encoded as ordinary text: a document that contains a special
 * token's spelling is counted, not refused. Thread-safe. The encoding is the engine's
 * ({@link TokenCounter#cl100k}), loaded by the first count, not when a pipeline is made.
 */
public final class Tokenizer {

  private static final Tokenizer CL100K = new Tokenizer();

  private Tokenizer() {}

  public static Tokenizer cl100k() {
    return CL100K;
  }

  public int count(String text) {
    return TokenCounter.cl100k().countTokensOrdinary(text);
  }

  /**
   * The end of {@code text} holding at least {@code tokens} tokens, widened to start at a word
   * boundary; the whole text when it is shorter.
   */
  public String tail(String text, int tokens) {
    Encoding encoding = TokenCounter.cl100k();
    IntArrayList all = encoding.encodeOrdinary(text);
    if (all.size() <= tokens) {
      return text;
    }
    IntArrayList last = new IntArrayList(tokens);
    for (int i = all.size() - tokens; i < all.size(); i++) {
      last.add(all.get(i));
    }
    String decoded = encoding.decode(last);
    int start = Math.max(0, text.length() - decoded.length());
    while (start > 0 && !Character.isWhitespace(text.charAt(start - 1))) {
      start--;
    }
    return text.substring(start).strip();
  }
}
