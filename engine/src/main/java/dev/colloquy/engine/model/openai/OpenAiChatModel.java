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
import dev.colloquy.engine.model.TokenUsage;
import dev.colloquy.engine.observe.TurnLogContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenAI-compatible chat endpoint (OpenAI, Gemini's OpenAI endpoint, Ollama, vLLM, llama.cpp)
 * through openai-java. The client retries 429 and 5xx answers itself; those come before the first
 * token, so a stream is never retried once it has produced text. Calls run on the executor given,
 * which must start a thread per call (virtual threads): cancelling interrupts that thread.
 */
public final class OpenAiChatModel implements ChatModel {

  public static final String PROVIDER = "openai-compatible";

  private static final Logger log = LoggerFactory.getLogger(OpenAiChatModel.class);

  /**
   * The most text (UTF-8) one answer may carry, far beyond what a model is asked for: the frames
   * that carry a whole answer cross the cluster in one message, which must stay within its largest
   * frame (see application.conf). An endpoint that streams more has its call closed and its run
   * failed with {@link ModelException#ANSWER_TOO_LARGE}, keeping what came before.
   */
  public static final long MAX_ANSWER_BYTES = 2L * 1024 * 1024;

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
    executor.execute(TurnLogContext.carried(() -> call.run(client, params(request), request, listener)));
    return call::cancel;
  }

  private static ChatCompletionCreateParams params(ChatRequest request) {
    ChatCompletionCreateParams.Builder params =
        ChatCompletionCreateParams.builder()
            .model(request.model())
            .maxTokens(request.maxTokens())
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

  /**
   * One streaming call. Cancel may come from another thread at any moment, even before the
   * response: it interrupts the call's own virtual thread, which closes the socket under a
   * blocked read, so the upstream sees the connection go at once. The response is only ever closed
   * by the thread that reads it (closing it from another thread races OkHttp's reader).
   */
  private static final class Call {
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final AtomicReference<Thread> reader = new AtomicReference<>();

    void run(OpenAIClient client, ChatCompletionCreateParams params, ChatRequest request, ChatListener listener) {
      reader.set(Thread.currentThread());
      if (cancelled.get()) {
        return;
      }
      StringBuilder text = new StringBuilder();
      long[] bytes = {0};
      TokenUsage[] reported = {null};
      try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
        Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
        while (!cancelled.get() && chunks.hasNext()) {
          ChatCompletionChunk chunk = chunks.next();
          chunk.usage().ifPresent(u -> reported[0] = new TokenUsage(u.promptTokens(), u.completionTokens()));
          for (ChatCompletionChunk.Choice choice : chunk.choices()) {
            String token = choice.delta().content().orElse("");
            bytes[0] += token.getBytes(StandardCharsets.UTF_8).length;
            if (bytes[0] > MAX_ANSWER_BYTES) {
              log.warn("The answer of model {} passed {} bytes; its call is closed", request.model(), MAX_ANSWER_BYTES);
              listener.onError(new ModelException(ModelException.ANSWER_TOO_LARGE,
                  "The model's answer passed " + MAX_ANSWER_BYTES + " bytes and was cut off"));
              return;
            }
            if (!token.isEmpty()) {
              text.append(token);
              listener.onToken(token);
            }
          }
        }
      } catch (RuntimeException e) {
        if (!cancelled.get()) {
          ModelException error = translate(e, !text.isEmpty());
          // The code and the exception's class only: an endpoint's error body may quote the prompt.
          log.warn("The call to model {} failed with {} ({})", request.model(), error.code(), e.getClass().getName());
          listener.onError(error);
        }
        return;
      } finally {
        reader.set(null);
        Thread.interrupted();
      }
      if (!cancelled.get()) {
        listener.onComplete(
            reported[0] != null
                ? reported[0]
                : TokenUsage.counted(request.messages(), text.toString()));
      }
    }

    void cancel() {
      if (cancelled.compareAndSet(false, true)) {
        Thread thread = reader.get();
        if (thread != null) {
          thread.interrupt();
        }
      }
    }
  }

  static ModelException translate(RuntimeException e, boolean midStream) {
    if (timedOut(e)) {
      return new ModelException(ModelException.TIMEOUT, "The model endpoint stopped answering in time", e);
    }
    if (e instanceof RateLimitException) {
      return new ModelException(ModelException.RATE_LIMITED, "The model endpoint is rate limiting requests", e);
    }
    // Before the service exceptions: an error event in a stream is one of them, with the stream's HTTP 200.
    if (e instanceof SseException || (midStream && e instanceof OpenAIIoException)) {
      return new ModelException(ModelException.STREAM_BROKEN, "The model stream broke off", e);
    }
    if (e instanceof OpenAIServiceException service) {
      int status = service.statusCode();
      String code = status >= 500 ? ModelException.UNAVAILABLE : ModelException.REJECTED;
      return new ModelException(code, "The model endpoint answered HTTP " + status, e);
    }
    if (e instanceof OpenAIIoException) {
      return new ModelException(ModelException.UNAVAILABLE, "The model endpoint cannot be reached", e);
    }
    return new ModelException(ModelException.STREAM_BROKEN, "The model stream failed: " + e.getClass().getSimpleName(), e);
  }

  /** The HTTP client's own read or call timeout (set from the same settings as the run's timers). */
  private static boolean timedOut(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof java.net.SocketTimeoutException
          || (cause instanceof java.io.InterruptedIOException && "timeout".equals(cause.getMessage()))) {
        return true;
      }
    }
    return false;
  }
}
