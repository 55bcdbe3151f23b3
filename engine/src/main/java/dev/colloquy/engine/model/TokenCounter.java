package dev.colloquy.engine.model;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.List;

/**
 * Counts cl100k_base tokens, for usage a provider did not report and for the offline responder. The
 * encoding's tables (about 16 MB of heap, 0.2 s to load) are loaded by the first count and shared by
 * every counter of the process, the ingestion's too: a node that has not yet counted a token does not
 * hold them.
 */
public final class TokenCounter {

  /** Initialized on first use (the holder idiom): loading the class of TokenCounter alone loads nothing. */
  private static final class Loaded {
    static final Encoding CL100K = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);
  }

  private static volatile boolean loaded;

  private TokenCounter() {}

  /** cl100k_base itself; the first call loads it, and may take a fraction of a second. */
  public static Encoding cl100k() {
    Encoding encoding = Loaded.CL100K;
    if (!loaded) {
      // Written once: a volatile write on every count would cost each of them a store fence.
      loaded = true;
    }
    return encoding;
  }

  /** Whether {@link #cl100k} has been loaded, so that counting no longer waits for it. */
  public static boolean loaded() {
    return loaded;
  }

  public static long count(String text) {
    return cl100k().countTokens(text);
  }

  public static long count(List<ChatMessage> messages) {
    long total = 0;
    for (ChatMessage message : messages) {
      total += count(message.content());
    }
    return total;
  }
}
