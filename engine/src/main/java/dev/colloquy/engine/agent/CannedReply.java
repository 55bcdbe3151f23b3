package dev.colloquy.engine.agent;

import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.TokenUsage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's own answer, which no model writes: the redirect of an out-of-scope message, the
 * hand-off notice of an escalation, the receipt of a message forwarded to a human. It streams like
 * a run, word by word, so that every client sees it the way it sees a model's answer; it costs no
 * tokens, and its provider, {@value #PROVIDER}, says that no model wrote it.
 */
public final class CannedReply implements ChatModel {

  public static final String PROVIDER = "agent";

  private static final Pattern WORD_WITH_SPACE = Pattern.compile("\\S+\\s*|\\s+");

  private final String text;

  public CannedReply(String text) {
    this.text = text;
  }

  @Override
  public String provider() {
    return PROVIDER;
  }

  /** Sends the words on the caller's thread: the listener hands them to an actor and returns at once. */
  @Override
  public ChatStream stream(ChatRequest request, ChatListener listener) {
    Matcher words = WORD_WITH_SPACE.matcher(text);
    while (words.find()) {
      listener.onToken(words.group());
    }
    listener.onComplete(TokenUsage.NONE);
    return () -> { };
  }
}
