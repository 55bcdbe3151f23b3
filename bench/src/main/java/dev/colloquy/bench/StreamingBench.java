package dev.colloquy.bench;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Drives N concurrent sessions through the HTTP API against the mock model with a fixed time to
 * first token and inter-token delay, and reports what the engine adds to both, throughput and heap
 * per session. Engine, mock and clients share this JVM and its cores: the figures are an upper
 * bound of the engine's own overhead on this machine.
 */
@Command(name = "streaming", mixinStandardHelpOptions = true,
    description = "N concurrent sessions streaming turns over SSE against mock-llm; prints a Markdown report."
        + " With --dialect other than canonical: interleaved pairs of runs, each dialect against the canonical route.")
final class StreamingBench implements Callable<Integer> {

  @Option(names = "--dialect", split = ",", defaultValue = CanonicalBenchDialect.NAME,
      description = "Wire dialects to measure, comma-separated: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})",
      completionCandidates = DialectNames.class)
  List<String> dialects;

  @Option(names = "--pairs", defaultValue = "3",
      description = "With --dialect: runs per dialect, taking turns with the canonical route's (default ${DEFAULT-VALUE})")
  int pairs;

  @Option(names = "--sessions", defaultValue = "100", description = "Concurrent sessions (default ${DEFAULT-VALUE})")
  int sessions;

  @Option(names = "--turns", defaultValue = "3", description = "Turns per session (default ${DEFAULT-VALUE})")
  int turns;

  @Option(names = "--tokens", defaultValue = "32", description = "Tokens per answer (default ${DEFAULT-VALUE})")
  int tokens;

  @Option(names = "--ttft-ms", defaultValue = "200", description = "Mock time to first token (default ${DEFAULT-VALUE})")
  long ttftMs;

  @Option(names = "--delay-ms", defaultValue = "20", description = "Mock inter-token delay (default ${DEFAULT-VALUE})")
  long delayMs;

  @Option(names = "--ramp-up-ms", defaultValue = "0",
      description = "Spread the sessions' first turns over this long instead of starting all at once (default ${DEFAULT-VALUE})")
  long rampUpMs;

  /** The names {@code --dialect} takes, for its help. */
  static final class DialectNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return BenchDialect.ALL.keySet().iterator();
    }
  }

  @Override
  public Integer call() throws Exception {
    for (String dialect : dialects) {
      if (!BenchDialect.ALL.containsKey(dialect)) {
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
            "Unknown dialect '" + dialect + "'; known: " + BenchDialect.ALL.keySet());
      }
    }
    if (!dialects.equals(List.of(CanonicalBenchDialect.NAME))) {
      new DialectComparison(new StreamingLoad.Shape(sessions, turns, ttftMs, rampUpMs), tokens, delayMs, pairs,
          dialects.stream().filter(name -> !name.equals(CanonicalBenchDialect.NAME)).map(BenchDialect.ALL::get).toList())
          .run();
      return 0;
    }
    Path dataDir = Files.createTempDirectory("colloquy-bench");
    MockLlmSettings mockSettings = MockLlmSettings.defaults().withTokens(tokens)
        .withDelays(Duration.ofMillis(ttftMs), Duration.ofMillis(delayMs));
    try (MockLlmServer mock = MockLlmServer.start(mockSettings, "127.0.0.1", 0);
        Colloquy colloquy = Colloquy.start(ConfigFactory.parseMap(Map.of(
            "colloquy.http.port", 0,
            "colloquy.storage.data-dir", dataDir.toString(),
            "colloquy.llm.base-url", mock.baseUrl(),
            "colloquy.llm.model", "mock",
            "colloquy.session.passivation-timeout", "1h",
            "pekko.remote.artery.canonical.port", 0)));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      StreamingLoad load = new StreamingLoad(client, colloquy.baseUrl(), "Bearer " + DevKey.of(colloquy),
          new StreamingLoad.Shape(sessions, turns, ttftMs, rampUpMs));
      load.run(load.openSessions(1));
      long heapBefore = usedHeapAfterGc();
      List<String> ids = load.openSessions(sessions);
      StreamingLoad.Result result = load.run(ids);
      long heapPerSession = (usedHeapAfterGc() - heapBefore) / sessions;
      report(result, heapPerSession);
    }
    return 0;
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200); // lets the collector finish before the heap is read; this is a benchmark, not a test
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private void report(StreamingLoad.Result result, long heapPerSession) {
    Histogram addedTtftMicros = result.addedTtftMicros();
    Histogram interTokenMicros = result.interTokenMicros();
    System.out.printf("| sessions | ramp-up | turns | tokens/turn | mock TTFT / delay | added TTFT p50 | added TTFT p99 | inter-token p99 (mock %d ms) | tokens/s | turns/s | heap/session |%n", delayMs);
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
    System.out.printf("| %d | %d ms | %d | %d | %d ms / %d ms | %.1f ms | %.1f ms | %.1f ms (added %.1f ms) | %.0f | %.1f | %.1f KiB |%n",
        sessions, rampUpMs, result.turns(), tokens, ttftMs, delayMs,
        addedTtftMicros.getValueAtPercentile(50) / 1000.0, addedTtftMicros.getValueAtPercentile(99) / 1000.0,
        interTokenMicros.getValueAtPercentile(99) / 1000.0,
        Math.max(0, interTokenMicros.getValueAtPercentile(99) / 1000.0 - delayMs),
        result.tokensPerSecond(), result.turnsPerSecond(), heapPerSession / 1024.0);
  }
}
