package dev.colloquy.engine.agent;

import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenUsage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The language middleware's way out (seed 004 §9): a run's answerer whose answer is translated into
 * the user's language before anyone sees it. The answer is written whole, then the model translates
 * it and the translation streams as the run's tokens; the run's usage is both calls'. Should the
 * translation fail, the answer streams as it was written: a user gets an answer either way.
 */
public final class TranslatedAnswers implements ChatModel {

  private final ChatModel answerer;
  private final ChatModel translator;
  private final String translatorModel;
  private final String from;
  private final String to;

  /** Answers with {@code answerer} in language {@code from}; {@code translator} (model {@code translatorModel}) translates into {@code to}. */
  public TranslatedAnswers(ChatModel answerer, ChatModel translator, String translatorModel, String from, String to) {
    this.answerer = answerer;
    this.translator = translator;
    this.translatorModel = translatorModel;
    this.from = from;
    this.to = to;
  }

  @Override
  public String provider() {
    return answerer.provider();
  }

  @Override
  public ChatStream stream(ChatRequest request, ChatListener listener) {
    AtomicBoolean cancelled = new AtomicBoolean();
    AtomicReference<ChatStream> current = new AtomicReference<>();
    StringBuilder answer = new StringBuilder();
    ChatStream answering = answerer.stream(request, new ChatListener() {
      @Override
      public void onToken(String text) {
        synchronized (answer) {
          answer.append(text);
        }
      }

      @Override
      public void onComplete(TokenUsage usage) {
        String written;
        synchronized (answer) {
          written = answer.toString();
        }
        if (cancelled.get()) {
          return;
        }
        current.set(translator.stream(Translation.request(translatorModel, written, from, to),
            translation(written, usage, listener)));
        if (cancelled.get()) {
          current.get().cancel();
        }
      }

      @Override
      public void onError(ModelException error) {
        listener.onError(error);
      }
    });
    // An answerer that completes at once (the agent's own replies) has already started the translation.
    current.compareAndSet(null, answering);
    return () -> {
      cancelled.set(true);
      current.get().cancel();
    };
  }

  /** Streams the translation on; a translation that fails before its first token gives way to the answer as written. */
  private static ChatListener translation(String written, TokenUsage answerUsage, ChatListener listener) {
    AtomicBoolean streamed = new AtomicBoolean();
    return new ChatListener() {
      @Override
      public void onToken(String text) {
        streamed.set(true);
        listener.onToken(text);
      }

      @Override
      public void onComplete(TokenUsage usage) {
        listener.onComplete(answerUsage.plus(usage));
      }

      @Override
      public void onError(ModelException error) {
        if (streamed.get()) {
          listener.onError(error);
        } else {
          listener.onToken(written);
          listener.onComplete(answerUsage);
        }
      }
    };
  }
}
