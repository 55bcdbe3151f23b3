package dev.colloquy.engine.agent;

import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenUsage;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * One of the agent's own model calls (routing, extraction): the whole answer as one text. The call
 * is cancelled, closing its connection, when it takes longer than {@code timeout}.
 */
final class ModelAnswer {

  private ModelAnswer() {}

  static CompletionStage<String> of(ChatModel model, ChatRequest request, Duration timeout) {
    CompletableFuture<String> answer = new CompletableFuture<>();
    StringBuilder text = new StringBuilder();
    ChatStream stream = model.stream(request, new ChatListener() {
      @Override
      public void onToken(String token) {
        synchronized (text) {
          text.append(token);
        }
      }

      @Override
      public void onComplete(TokenUsage usage) {
        synchronized (text) {
          answer.complete(text.toString());
        }
      }

      @Override
      public void onError(ModelException error) {
        answer.completeExceptionally(error);
      }
    });
    return answer.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((ignored, failure) -> stream.cancel());
  }
}
