package dev.colloquy.app.cli;

import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code colloquy mock-llm}: the OpenAI-compatible mock model server used by tests and benchmarks. */
@Command(name = "mock-llm", mixinStandardHelpOptions = true,
    description = {"Serves an OpenAI-compatible /v1/chat/completions (streaming and not, with usage) and /v1/embeddings"
        + " with scripted tokens, latency and failures.",
        "Point Colloquy at it with COLLOQUY_LLM_BASE_URL=http://127.0.0.1:PORT/v1 COLLOQUY_LLM_MODEL=mock."})
final class MockLlmCommand implements Callable<Integer> {

  @Option(names = "--port", defaultValue = "8090", description = "Port (default ${DEFAULT-VALUE}; 0 = any free port)")
  int port;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Interface (default ${DEFAULT-VALUE})")
  String host;

  @Option(names = "--tokens", defaultValue = "16", description = "Tokens per completion (default ${DEFAULT-VALUE})")
  int tokens;

  @Option(names = "--ttft-ms", defaultValue = "50", description = "Time to first token in ms (default ${DEFAULT-VALUE})")
  long ttftMs;

  @Option(names = "--delay-ms", defaultValue = "10", description = "Delay between tokens in ms (default ${DEFAULT-VALUE})")
  long delayMs;

  @Option(names = "--fail-model", paramLabel = "MODEL", description = "Requests for this model fail (repeatable)")
  List<String> failingModels = List.of();

  @Option(names = "--failure", defaultValue = "HTTP_500",
      description = "How failing models fail: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
  FailureMode failure;

  @Option(names = "--fail-after", defaultValue = "2", description = "Tokens sent before a mid-stream failure (default ${DEFAULT-VALUE})")
  int failAfter;

  @Option(names = "--fail-first", defaultValue = "0", description = "The first N requests get 429 with Retry-After: 0")
  int failFirst;

  @Option(names = "--http2",
      description = "Also speak HTTP/2 over plain TCP (h2c), for clients with colloquy.llm.http2-prior-knowledge")
  boolean http2;

  @Option(names = "--token-text", description = "Text of token i, with {i} replaced by i (default \"tok{i} \")")
  String tokenText = MockLlmSettings.DEFAULT_TOKEN_TEXT;

  @Override
  public Integer call() {
    MockLlmSettings settings = MockLlmSettings.defaults()
        .withTokens(tokens)
        .withDelays(Duration.ofMillis(ttftMs), Duration.ofMillis(delayMs))
        .withFailingModels(Set.copyOf(failingModels))
        .withFailureMode(failure)
        .withFailAfterTokens(failAfter)
        .withFailFirstRequests(failFirst)
        .withTokenText(tokenText);
    MockLlmServer server = MockLlmServer.start(settings, host, port, http2);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "mock-llm-shutdown"));
    // SIGTERM is a normal stop: close the server and exit 0 rather than the JVM's 143.
    sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> server.close());
    System.out.println("mock-llm listening on " + server.baseUrl());
    server.whenClosed().toCompletableFuture().join();
    return 0;
  }
}
