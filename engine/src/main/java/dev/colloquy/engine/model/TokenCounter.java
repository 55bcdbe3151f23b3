package dev.colloquy.engine.model;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.List;

/** Counts cl100k_base tokens, for usage a provider did not report and for the offline responder. */
public final class TokenCounter {

  private static final Encoding CL100K =
      Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);

  private TokenCounter() {}

  public static long count(String text) {
    return CL100K.countTokens(text);
  }

  public static long count(List<ChatMessage> messages) {
    long total = 0;
    for (ChatMessage message : messages) {
      total += count(message.content());
    }
    return total;
  }
}
