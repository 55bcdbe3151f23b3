package dev.colloquy.engine.model.openai;

import com.openai.core.ClientOptions;
import com.openai.core.RequestOptions;
import com.openai.core.Timeout;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpMethod;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import com.openai.errors.OpenAIIoException;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.config.ProviderSettings;
import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenUsage;
import dev.colloquy.engine.model.ToolCall;
import dev.colloquy.engine.observe.TurnLogContext;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenAI-compatible chat endpoint (OpenAI, Gemini's OpenAI endpoint, Ollama, vLLM, llama.cpp)
 * through openai-java's HTTP client. That client retries 429 and 5xx answers itself; those come
 * before the first token, so a stream is never retried once it has produced text. Calls run on the
 * executor given, which must start a thread per call (virtual threads): cancelling interrupts that
 * thread.
 *
 * <p>The request body is written once per call by {@link ChatCompletionBody} and sent through the
 * client openai-java assembles from its options (its retries with their backoff and headers, its
 * timeouts) over one shared OkHttp client ({@link OkHttpTransport}); the bearer key and openai-java's own headers go on the request
 * here, because openai-java adds them only inside its typed services, which would build, validate
 * and serialize the request through its own model classes first. An answer's HTTP status is judged
 * here the way openai-java's exceptions judged it ({@link #rejected}); the streamed answer is read
 * from the raw response by {@link CompletionChunks}. The
 * connections are pooled (many concurrent streams over HTTP/1.1 need as many connections, and
 * OkHttp keeps only 5 idle by default), or multiplexed over HTTP/2: over TLS when the endpoint
 * offers it, over plain HTTP when {@code http2-prior-knowledge} says the endpoint speaks it. One
 * instance serves one provider, with that provider's own client, pool and settings.
 */
public final class OpenAiChatModel implements ChatModel {

  private static final Logger log = LoggerFactory.getLogger(OpenAiChatModel.class);

  /**
   * The most text (UTF-8) one answer may carry, far beyond what a model is asked for: the frames
   * that carry a whole answer cross the cluster in one message, which must stay within its largest
   * frame (see application.conf). An endpoint that streams more has its call closed and its run
   * failed with {@link ModelException#ANSWER_TOO_LARGE}, keeping what came before.
   */
  public static final long MAX_ANSWER_BYTES = 2L * 1024 * 1024;

  private final String provider;
  private final ClientOptions options;
  private final HttpClient client;
  private final RequestOptions requestOptions;
  private final String authorization;
  private final Executor executor;
  /** How long a call may go without hearing from the endpoint ({@link ReadDeadline}). */
  private final Duration readTimeout;
  /**
   * How long a call may take in all, retries included ({@link ReadDeadline}): a little past the run's
   * own total timeout, which cancels it first; this bounds calls nobody cancels.
   */
  private final Duration callLimit;

  /** The first provider of {@code settings}. */
  public OpenAiChatModel(LlmSettings settings, Executor executor) {
    this(settings.providers().getFirst(), executor);
  }

  public OpenAiChatModel(ProviderSettings settings, Executor executor) {
    this.provider = settings.name();
    this.callLimit = settings.totalTimeout().plus(Duration.ofSeconds(5));
    Timeout timeout = Timeout.builder()
        .connect(settings.connectTimeout())
        .read(settings.firstTokenTimeout())
        // The same limit as each call's ReadDeadline keeps; OkHttpTransport sets no call timeout from it.
        .request(callLimit)
        .build();
    this.options =
        ClientOptions.builder()
            .httpClient(new OkHttpTransport(transport(settings, timeout)))
            .baseUrl(settings.baseUrl())
            // Local servers (Ollama, llama.cpp) take no key, but the endpoint gets the header all the same.
            .apiKey(settings.apiKey().orElse("not-needed"))
            .maxRetries(settings.maxRetries())
            .timeout(timeout)
            .build();
    this.client = options.httpClient();
    this.requestOptions = RequestOptions.builder().timeout(options.timeout()).build();
    this.authorization = "Bearer " + settings.apiKey().orElse("not-needed");
    this.executor = executor;
    this.readTimeout = settings.firstTokenTimeout();
  }

  private static OkHttpClient transport(ProviderSettings settings, Timeout timeout) {
    return new OkHttpClient.Builder()
        .connectTimeout(timeout.connect())
        // No socket read timeout: each call's ReadDeadline times its reads (see there why).
        .readTimeout(Duration.ZERO)
        .writeTimeout(timeout.write())
        .connectionPool(new ConnectionPool(settings.maxIdleConnections(), 5, TimeUnit.MINUTES))
        .protocols(settings.http2PriorKnowledge()
            ? List.of(Protocol.H2_PRIOR_KNOWLEDGE)
            : List.of(Protocol.HTTP_2, Protocol.HTTP_1_1))
        .build();
  }

  @Override
  public String provider() {
    return provider;
  }

  @Override
  public ChatStream stream(ChatRequest request, ChatListener listener) {
    Call call = new Call();
    executor.execute(TurnLogContext.carried(() -> call.run(this, request, listener)));
    return call::cancel;
  }

  /** The streamed chat completion of {@code request}, as openai-java's chat service would send it. */
  private HttpResponse send(ChatRequest request) {
    HttpRequest http = HttpRequest.builder()
        .method(HttpMethod.POST)
        .baseUrl(options.baseUrl())
        .addPathSegments("chat", "completions")
        .putAllQueryParams(options.queryParams())
        .putAllHeaders(options.headers())
        .replaceHeaders("Authorization", authorization)
        .putHeader("Accept", "text/event-stream")
        .body(new JsonBody(ChatCompletionBody.of(request)))
        .build();
    HttpResponse response = client.execute(http, requestOptions);
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      return response;
    }
    response.close();
    throw rejected(status);
  }

  /** An answer that is no stream, as openai-java's error handler classed it: 429, 5xx, or any other. */
  static ModelException rejected(int status) {
    if (status == 429) {
      return new ModelException(ModelException.RATE_LIMITED, "The model endpoint is rate limiting requests");
    }
    String code = status >= 500 ? ModelException.UNAVAILABLE : ModelException.REJECTED;
    return new ModelException(code, "The model endpoint answered HTTP " + status);
  }

  /**
   * One streaming call. Cancel may come from another thread at any moment, even before the
   * response: it interrupts the call's own virtual thread, which closes the socket under a
   * blocked read, so the upstream sees the connection go at once. A {@link ReadDeadline} that passes
   * (the endpoint silent for the first-token timeout, before its answer or between two reads of it)
   * ends the call the same way, and the call reports {@link ModelException#TIMEOUT}. The response is
   * only ever closed by the thread that reads it (closing it from another thread races OkHttp's reader).
   */
  private static final class Call {
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final AtomicBoolean timedOut = new AtomicBoolean();
    private final AtomicReference<Thread> reader = new AtomicReference<>();

    void run(OpenAiChatModel model, ChatRequest request, ChatListener listener) {
      reader.set(Thread.currentThread());
      if (cancelled.get()) {
        return;
      }
      Answer answer = new Answer(listener);
      ReadDeadline deadline = ReadDeadline.start(model.readTimeout, model.callLimit, this::expire);
      try (HttpResponse response = model.send(request);
          InputStream body = new DeadlineStream(response.body(), deadline)) {
        CompletionChunks chunks = new CompletionChunks(body);
        while (!cancelled.get() && !answer.tooLarge && chunks.next(answer)) {
          // each chunk's tokens went to the listener
        }
        if (answer.tooLarge && !cancelled.get()) {
          log.warn("The answer of model {} passed {} bytes; its call is closed", request.model(), MAX_ANSWER_BYTES);
          listener.onError(new ModelException(ModelException.ANSWER_TOO_LARGE,
              "The model's answer passed " + MAX_ANSWER_BYTES + " bytes and was cut off"));
          return;
        }
        if (!cancelled.get()) {
          chunks.drain();
        }
      } catch (IOException | RuntimeException e) {
        if (!cancelled.get()) {
          ModelException error = timedOut.get() ? timeout(e)
              : e instanceof ModelException rejected ? rejected : translate(e, !answer.text.isEmpty());
          // The code and the exception's class only: an endpoint's error body may quote the prompt.
          log.warn("The call to model {} failed with {} ({})", request.model(), error.code(), e.getClass().getName());
          listener.onError(error);
        }
        return;
      } finally {
        deadline.end();
        reader.set(null);
        Thread.interrupted();
      }
      if (!cancelled.get()) {
        List<ToolCall> calls = answer.toolCalls();
        if (!calls.isEmpty()) {
          listener.onToolCalls(calls);
        }
        listener.onComplete(
            answer.usage != null
                ? answer.usage
                : TokenUsage.counted(request.messages(), answer.text.toString()));
      }
    }

    void cancel() {
      if (cancelled.compareAndSet(false, true)) {
        interruptReader();
      }
    }

    /** The endpoint sent nothing for the whole read timeout: the call ends as a cancel does, but reports TIMEOUT. */
    private void expire() {
      if (!cancelled.get() && timedOut.compareAndSet(false, true)) {
        interruptReader();
      }
    }

    private void interruptReader() {
      Thread thread = reader.get();
      if (thread != null) {
        thread.interrupt();
      }
    }
  }

  /** The answer's body, each read of which pushes its call's {@link ReadDeadline} back. */
  private static final class DeadlineStream extends FilterInputStream {
    private final ReadDeadline deadline;

    DeadlineStream(InputStream body, ReadDeadline deadline) {
      super(body);
      this.deadline = deadline;
    }

    @Override
    public int read() throws IOException {
      deadline.reading();
      return super.read();
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
      deadline.reading();
      return super.read(bytes, offset, length);
    }
  }

  /**
   * The run's answer as it streams: each token goes to the listener as it is read, until the answer
   * passes {@link #MAX_ANSWER_BYTES}; what comes after is dropped and the call is closed. The tool calls
   * it asks for are assembled from their pieces (by index) and told at the end; their arguments count
   * towards the same cap.
   */
  private static final class Answer implements CompletionChunks.Handler {
    private final ChatListener listener;
    private final StringBuilder text = new StringBuilder();
    private long bytes;
    private boolean tooLarge;
    private final Map<Integer, PendingCall> calls = new TreeMap<>();
    private TokenUsage usage;

    Answer(ChatListener listener) {
      this.listener = listener;
    }

    @Override
    public void content(String token) {
      if (tooLarge) {
        return;
      }
      bytes += token.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > MAX_ANSWER_BYTES) {
        tooLarge = true;
        return;
      }
      text.append(token);
      listener.onToken(token);
    }

    @Override
    public void usage(TokenUsage reported) {
      usage = reported;
    }

    @Override
    public void toolCall(int index, String id, String name, String arguments) {
      if (tooLarge) {
        return;
      }
      if (arguments != null) {
        bytes += arguments.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_ANSWER_BYTES) {
          tooLarge = true;
          return;
        }
      }
      PendingCall call = calls.computeIfAbsent(index, ignored -> new PendingCall());
      if (id != null) {
        call.id = id;
      }
      if (name != null) {
        call.name = call.name == null ? name : call.name + name;
      }
      if (arguments != null) {
        call.arguments.append(arguments);
      }
    }

    /** The calls asked for, in index order; one without an id gets one, so that its result can name it. */
    List<ToolCall> toolCalls() {
      List<ToolCall> assembled = new ArrayList<>(calls.size());
      calls.forEach((index, call) -> {
        if (call.name != null) {
          assembled.add(new ToolCall(call.id != null ? call.id : "call_" + index, call.name,
              call.arguments.isEmpty() ? "{}" : call.arguments.toString()));
        }
      });
      return assembled;
    }
  }

  private static final class PendingCall {
    private String id;
    private String name;
    private final StringBuilder arguments = new StringBuilder();
  }

  /** A failure of the call, once the endpoint had answered with a stream or could not be reached. */
  static ModelException translate(Exception e, boolean midStream) {
    if (timedOut(e)) {
      return timeout(e);
    }
    if (e instanceof CompletionChunks.ErrorEvent
        || (midStream && (e instanceof OpenAIIoException || e instanceof IOException))) {
      return new ModelException(ModelException.STREAM_BROKEN, "The model stream broke off", e);
    }
    if (e instanceof OpenAIIoException || e instanceof IOException) {
      return new ModelException(ModelException.UNAVAILABLE, "The model endpoint cannot be reached", e);
    }
    return new ModelException(ModelException.STREAM_BROKEN, "The model stream failed: " + e.getClass().getSimpleName(), e);
  }

  private static ModelException timeout(Exception e) {
    return new ModelException(ModelException.TIMEOUT, "The model endpoint stopped answering in time", e);
  }

  /** The HTTP client's own connect or write timeout (set from the same settings as the run's timers). */
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
