package dev.colloquy.engine.model.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.Timeout;
import com.openai.core.http.StreamResponse;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.RateLimitException;
import com.openai.errors.SseException;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenCounter;
import dev.colloquy.engine.model.TokenUsage;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An OpenAI-compatible chat endpoint (OpenAI, Gemini's OpenAI endpoint, Ollama, vLLM, llama.cpp)
 * through openai-java. The client retries 429 and 5xx answers itself; those come before the first
 * token, so a stream is never retried once it has produced text.
 */
public final class OpenAiChatModel implements ChatModel {

  public static final String PROVIDER = "openai-compatible";

  private final OpenAIClient client;
  private final Executor executor;

  public OpenAiChatModel(LlmSettings settings, Executor executor) {
    this.client =
        OpenAIOkHttpClient.builder()
            .baseUrl(settings.baseUrl().orElseThrow())
            // Local servers (Ollama, llama.cpp) take no key, but the client insists on one.
            .apiKey(settings.apiKey().orElse("not-needed"))
            .maxRetries(settings.maxRetries())
            .timeout(
                Timeout.builder()
                    .connect(settings.connectTimeout())
                    .read(settings.firstTokenTimeout())
                    .request(settings.totalTimeout().plus(Duration.ofSeconds(5)))
                    .build())
            .build();
    this.executor = executor;
  }

  @Override
  public String provider() {
    return PROVIDER;
  }

  @Override
  public ChatStream stream(ChatRequest request, ChatListener listener) {
    Call call = new Call();
    executor.execute(() -> call.run(params(request), request, listener));
    return call::cancel;
  }

  private static ChatCompletionCreateParams params(ChatRequest request) {
    ChatCompletionCreateParams.Builder params =
        ChatCompletionCreateParams.builder()
            .model(request.model())
            .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build());
    for (ChatMessage message : request.messages()) {
      switch (message.role()) {
        case SYSTEM -> params.addSystemMessage(message.content());
        case USER -> params.addUserMessage(message.content());
        case ASSISTANT -> params.addAssistantMessage(message.content());
      }
    }
    return params.build();
  }

  /** One streaming call; cancel may come from another thread at any moment, even before the response. */
  private final class Call {
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final AtomicReference<StreamResponse<ChatCompletionChunk>> response = new AtomicReference<>();

    void run(ChatCompletionCreateParams params, ChatRequest request, ChatListener listener) {
      StringBuilder text = new StringBuilder();
      TokenUsage[] reported = {null};
      try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
        response.set(stream);
        if (cancelled.get()) {
          return;
        }
        stream.stream()
            .forEach(
                chunk -> {
                  chunk.usage().ifPresent(u -> reported[0] = new TokenUsage(u.promptTokens(), u.completionTokens()));
                  for (ChatCompletionChunk.Choice choice : chunk.choices()) {
                    choice.delta().content().filter(s -> !s.isEmpty()).ifPresent(token -> {
                      text.append(token);
                      listener.onToken(token);
                    });
                  }
                });
      } catch (RuntimeException e) {
        if (!cancelled.get()) {
          listener.onError(translate(e, !text.isEmpty()));
        }
        return;
      }
      if (!cancelled.get()) {
        listener.onComplete(
            reported[0] != null
                ? reported[0]
                : new TokenUsage(TokenCounter.count(request.messages()), TokenCounter.count(text.toString())));
      }
    }

    void cancel() {
      if (cancelled.compareAndSet(false, true)) {
        StreamResponse<ChatCompletionChunk> stream = response.get();
        if (stream != null) {
          stream.close();
        }
      }
    }
  }

  static ModelException translate(RuntimeException e, boolean midStream) {
    if (e instanceof RateLimitException) {
      return new ModelException(ModelException.RATE_LIMITED, "The model endpoint is rate limiting requests", e);
    }
    if (e instanceof OpenAIServiceException service) {
      int status = service.statusCode();
      String code = status >= 500 ? ModelException.UNAVAILABLE : ModelException.REJECTED;
      return new ModelException(code, "The model endpoint answered HTTP " + status, e);
    }
    if (e instanceof SseException || (midStream && e instanceof OpenAIIoException)) {
      return new ModelException(ModelException.STREAM_BROKEN, "The model stream broke off", e);
    }
    if (e instanceof OpenAIIoException) {
      return new ModelException(ModelException.UNAVAILABLE, "The model endpoint cannot be reached", e);
    }
    return new ModelException(ModelException.STREAM_BROKEN, "The model stream failed: " + e.getClass().getSimpleName(), e);
  }
}
