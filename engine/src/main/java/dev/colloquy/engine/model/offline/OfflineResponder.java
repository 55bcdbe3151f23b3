package dev.colloquy.engine.model.offline;

import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.TokenUsage;
import dev.colloquy.engine.observe.TurnLogContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The answer when no model is configured: composed from the retrieved passages (extractive and
 * deterministic), or a plain statement that nothing matched. It never pretends to be an LLM: its
 * provider is {@code offline} and its text says where it comes from.
 */
public final class OfflineResponder implements ChatModel {

  public static final String PROVIDER = "offline";
  static final String NOTHING_MATCHED =
      "No language model is configured and nothing in the knowledge base matches your message.";
  static final String PREAMBLE =
      "No language model is configured. These passages from the knowledge base match your message:";

  private static final Pattern WORD_WITH_SPACE = Pattern.compile("\\S+\\s*|\\s+");
  private static final int MAX_QUOTED_PASSAGES = 3;

  private final Executor executor;

  public OfflineResponder(Executor executor) {
    this.executor = executor;
  }

  @Override
  public String provider() {
    return PROVIDER;
  }

  @Override
  public ChatStream stream(ChatRequest request, ChatListener listener) {
    AtomicBoolean cancelled = new AtomicBoolean();
    executor.execute(TurnLogContext.carried(() -> emit(request, listener, cancelled)));
    return () -> cancelled.set(true);
  }

  static String compose(List<Passage> passages) {
    if (passages.isEmpty()) {
      return NOTHING_MATCHED;
    }
    StringBuilder text = new StringBuilder(PREAMBLE);
    int quoted = 0;
    for (Passage passage : passages) {
      if (quoted++ == MAX_QUOTED_PASSAGES) {
        break;
      }
      text.append("\n\n[").append(quoted).append("] ").append(passage.source());
      if (passage.section() != null && !passage.section().isBlank()) {
        text.append(" — ").append(passage.section());
      }
      text.append(":\n").append(passage.text().strip());
    }
    return text.toString();
  }

  /** Word-sized pieces, each with its trailing whitespace, that concatenate back to the text. */
  static List<String> tokens(String text) {
    List<String> tokens = new ArrayList<>();
    Matcher matcher = WORD_WITH_SPACE.matcher(text);
    while (matcher.find()) {
      tokens.add(matcher.group());
    }
    return tokens;
  }

  private static void emit(ChatRequest request, ChatListener listener, AtomicBoolean cancelled) {
    String text = compose(request.passages());
    for (String token : tokens(text)) {
      if (cancelled.get()) {
        return;
      }
      listener.onToken(token);
    }
    if (!cancelled.get()) {
      listener.onComplete(
          TokenUsage.counted(request.messages(), text));
    }
  }
}
