package dev.colloquy.mockllm;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.stream.Materializer;

/**
 * An OpenAI-compatible model server over real HTTP, for tests, benchmarks and {@code colloquy
 * mock-llm}. It runs on an actor system of its own, named "mock-llm", configured only from {@code
 * mock-llm.conf}, Pekko's reference settings and system properties prefixed {@code mock-llm.}, so
 * an application's {@code application.conf} (cluster, persistence) never leaks into it; {@link
 * #close()} terminates that system.
 *
 * <p>It speaks HTTP/1.1 and, when started with {@code http2}, also HTTP/2 over plain TCP (h2c: with
 * prior knowledge or by upgrade), so that many streams can share a connection. HTTP/2 is off by
 * default: java.net.http's default client asks for an h2c upgrade, which is needless in tests.
 *
 * <p>Endpoints: {@code POST /v1/chat/completions}, {@code POST /v1/embeddings}, {@code GET
 * /v1/models}, {@code GET /health}. Any model name is served.
 *
 * <p>Usage is deterministic: a "token" of the prompt is a word, a maximal run of letters or digits,
 * so {@code prompt_tokens} counts the words in all messages' text content ("Hello, world!" is 2)
 * and an embedding's usage counts the words of its inputs; {@code completion_tokens} is the number
 * of tokens of the answer.
 *
 * <p>One request can change its own script with the headers {@code X-Mock-Tokens}, {@code
 * X-Mock-Ttft-Ms} and {@code X-Mock-Delay-Ms} (inter-token), or the same in its {@code metadata} as
 * {@code mock_tokens}, {@code mock_ttft_ms} and {@code mock_delay_ms}; {@code max_tokens} caps the
 * answer with finish reason "length". Failures are described on {@link FailureMode}.
 */
public final class MockLlmServer implements AutoCloseable {
  private static final Duration BIND_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration UNBIND_DEADLINE = Duration.ofMillis(500);
  private static final Duration TERMINATE_TIMEOUT = Duration.ofSeconds(10);

  private final ActorSystem<Void> system;
  private final ServerBinding binding;
  private final RequestGate gate;
  private final MockLlmStats stats;
  private final RawScripts rawScripts;
  private final AtomicBoolean closed = new AtomicBoolean();

  private MockLlmServer(
      ActorSystem<Void> system,
      ServerBinding binding,
      RequestGate gate,
      MockLlmStats stats,
      RawScripts rawScripts) {
    this.system = system;
    this.binding = binding;
    this.gate = gate;
    this.stats = stats;
    this.rawScripts = rawScripts;
  }

  /** Starts on 127.0.0.1 and an ephemeral port. */
  public static MockLlmServer start(MockLlmSettings settings) {
    return start(settings, "127.0.0.1", 0);
  }

  /** Starts and returns once the port is bound; port 0 picks an ephemeral one. */
  public static MockLlmServer start(MockLlmSettings settings, String host, int port) {
    return start(settings, host, port, false);
  }

  /** As {@link #start(MockLlmSettings, String, int)}, speaking HTTP/2 as well when {@code http2}. */
  public static MockLlmServer start(MockLlmSettings settings, String host, int port, boolean http2) {
    Config config = actorSystemConfig();
    if (http2) {
      config = ConfigFactory.parseString("pekko.http.server.enable-http2 = on").withFallback(config);
    }
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "mock-llm", config);
    try {
      RequestGate gate = new RequestGate(settings);
      MockLlmStats stats = new MockLlmStats();
      ModelCatalog models = new ModelCatalog();
      RawScripts rawScripts = new RawScripts();
      MockLlmRoutes routes =
          new MockLlmRoutes(
              new ChatCompletionEndpoint(
                  gate, stats, models, rawScripts, Materializer.matFromSystem(system)),
              new EmbeddingEndpoint(gate, stats, models),
              models);
      ServerBinding binding =
          Http.get(system)
              .newServerAt(host, port)
              .bind(routes.route())
              .toCompletableFuture()
              .get(BIND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return new MockLlmServer(system, binding, gate, stats, rawScripts);
    } catch (InterruptedException e) {
      system.terminate();
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while binding mock-llm to " + host + ":" + port, e);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      system.terminate();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException("mock-llm could not bind " + host + ":" + port, cause);
    }
  }

  public int port() {
    return binding.localAddress().getPort();
  }

  /**
   * The OpenAI base URL, e.g. {@code http://127.0.0.1:PORT/v1}; a wildcard bind reads as loopback.
   */
  public String baseUrl() {
    return "http://" + urlHost(binding.localAddress()) + ":" + port() + "/v1";
  }

  public MockLlmStats stats() {
    return stats;
  }

  public MockLlmSettings settings() {
    return gate.settings();
  }

  /**
   * Applies new settings to the requests that arrive from now on, and re-arms {@link
   * MockLlmSettings#failFirstRequests()}; lets one server serve many tests.
   */
  public void reconfigure(MockLlmSettings settings) {
    gate.rearm(settings);
  }

  /**
   * From now on a streamed request whose last user message is {@code cue} is answered with {@code
   * tokens}, one chunk each, each token's bytes placed as they are between the quotes of the chunk's
   * {@code content}: JSON escapes, UTF-8, or bytes that are not UTF-8, as a faulty upstream might
   * send them (see {@link RawScripts}).
   */
  public void scriptRaw(String cue, List<byte[]> tokens) {
    rawScripts.put(cue, tokens);
  }

  /** Forgets what {@link #scriptRaw} said for {@code cue}. */
  public void forgetRaw(String cue) {
    rawScripts.remove(cue);
  }

  /** Completes when the server has closed, by {@link #close()} or by JVM shutdown. */
  public CompletionStage<Void> whenClosed() {
    return system.getWhenTerminated().thenAccept(done -> {});
  }

  /** Unbinds, gives in-flight requests a short grace, then terminates the actor system. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    awaitQuietly(binding.terminate(UNBIND_DEADLINE));
    system.terminate();
    awaitQuietly(system.getWhenTerminated());
  }

  /** {@code -Dmock-llm.pekko.loglevel=DEBUG} and the like reach this system and no other. */
  private static Config actorSystemConfig() {
    Config properties = ConfigFactory.systemProperties();
    Config overrides =
        properties.hasPath("mock-llm") ? properties.getConfig("mock-llm") : ConfigFactory.empty();
    return overrides.withFallback(ConfigFactory.parseResources("mock-llm.conf"));
  }

  private static String urlHost(InetSocketAddress address) {
    if (address.getAddress().isAnyLocalAddress()) {
      return "127.0.0.1";
    }
    String host = address.getAddress().getHostAddress();
    return address.getAddress() instanceof Inet6Address ? "[" + host + "]" : host;
  }

  /** Closing goes on whatever a step reports. */
  private static void awaitQuietly(CompletionStage<?> step) {
    try {
      step.toCompletableFuture().get(TERMINATE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // Unbinding late or failing still leaves the actor system's termination to end everything.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
