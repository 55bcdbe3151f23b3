package dev.colloquy.engine.agent;

import dev.colloquy.engine.Timeouts;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenUsage;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One of the agent's own model calls (routing, extraction): the whole answer as one text, with its
 * usage so that the turn bills it. The call is cancelled, closing its connection, when it takes longer than {@code timeout}.
 */
final class ModelAnswer {

  /** The answer's text and what the call used, as the provider reported it. */
  record Answer(String text, TokenUsage usage) {

    /** This call as one of the turn's agent calls, its cost left to the turn to price. */
    AgentCall call(String step, ChatModel model, String modelName) {
      return new AgentCall(step, model.provider(), modelName, new Usage(usage.promptTokens(), usage.completionTokens(), 0));
    }
  }

  private ModelAnswer() {}

  static CompletionStage<Answer> of(ChatModel model, ChatRequest request, Duration timeout) {
    CompletableFuture<Answer> answer = new CompletableFuture<>();
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
          answer.complete(new Answer(text.toString(), usage == null ? TokenUsage.NONE : usage));
        }
      }

      @Override
      public void onError(ModelException error) {
        answer.completeExceptionally(error);
      }
    });
    return Timeouts.within(answer, timeout)
        .whenComplete((ignored, failure) -> stream.cancel());
  }
}
