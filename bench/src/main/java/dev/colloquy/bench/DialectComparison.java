package dev.colloquy.bench;

import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The streaming workload through each wire dialect against the canonical route, on one node and one
 * mock model, in interleaved pairs of runs (the order turning each pair, so no dialect always runs
 * first on a warmer JVM), and what each dialect adds: turns/s and time to first token as ratios of
 * the canonical route's in the same run.
 */
final class DialectComparison {

  private final StreamingLoad.Shape shape;
  private final int tokens;
  private final long delayMs;
  private final int pairs;
  private final List<BenchDialect> dialects;

  DialectComparison(StreamingLoad.Shape shape, int tokens, long delayMs, int pairs, List<BenchDialect> dialects) {
    this.shape = shape;
    this.tokens = tokens;
    this.delayMs = delayMs;
    this.pairs = pairs;
    this.dialects = dialects;
  }

  void run() throws Exception {
    System.out.println(Machine.describe(true));
    System.out.println();
    Map<String, List<StreamingLoad.Result>> runs = measure();
    print(runs);
    System.out.println();
    System.out.println("Load average at the end: " + Machine.load());
  }

  private Map<String, List<StreamingLoad.Result>> measure() throws Exception {
    MockLlmSettings mockSettings = MockLlmSettings.defaults().withTokens(tokens)
        .withDelays(Duration.ofMillis(shape.ttftMs()), Duration.ofMillis(delayMs));
    try (MockLlmServer mock = MockLlmServer.start(mockSettings, "127.0.0.1", 0);
        BenchNode node = BenchNode.start(Map.of(
            "colloquy.llm.base-url", mock.baseUrl(),
            "colloquy.llm.model", OpenAiBenchDialect.MODEL,
            "colloquy.session.passivation-timeout", "1h"));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      BenchDialect.Target target = new BenchDialect.Target(client, node.colloquy().baseUrl(),
          "Bearer " + DevKey.of(node.colloquy()));
      Map<String, StreamingLoad> loads = new LinkedHashMap<>();
      loads.put(CanonicalBenchDialect.NAME, new StreamingLoad(target, BenchDialect.ALL.get(CanonicalBenchDialect.NAME), shape));
      dialects.forEach(dialect -> loads.put(dialect.name(), new StreamingLoad(target, dialect, shape)));
      Map<String, List<StreamingLoad.Result>> runs = new LinkedHashMap<>();
      for (Map.Entry<String, StreamingLoad> load : loads.entrySet()) {
        load.getValue().run(load.getValue().openSessions(1));
        runs.put(load.getKey(), new ArrayList<>());
      }
      List<String> order = new ArrayList<>(loads.keySet());
      for (int pair = 0; pair < pairs; pair++) {
        for (String dialect : order) {
          StreamingLoad load = loads.get(dialect);
          runs.get(dialect).add(load.run(load.openSessions(shape.sessions())));
        }
        order.add(order.removeFirst());
      }
      return runs;
    }
  }

  private void print(Map<String, List<StreamingLoad.Result>> runs) {
    System.out.printf("Streaming through each dialect, %d rounds of runs on one node, the dialects taking turns with the"
        + " canonical route (%d sessions × %d turns per run, %d tokens/turn, mock %d ms / %d ms, ramp-up %d ms):%n%n",
        pairs, shape.sessions(), shape.turns(), tokens, shape.ttftMs(), delayMs, shape.rampUpMs());
    System.out.println("| round | dialect | turns/s | added TTFT p50 | added TTFT p99 |");
    System.out.println("|---|---|---|---|---|");
    for (int pair = 0; pair < pairs; pair++) {
      for (Map.Entry<String, List<StreamingLoad.Result>> dialect : runs.entrySet()) {
        StreamingLoad.Result run = dialect.getValue().get(pair);
        System.out.printf("| %d | %s | %.1f | %.1f ms | %.1f ms |%n", pair + 1, dialect.getKey(), run.turnsPerSecond(),
            millis(run.addedTtftMicros(), 50), millis(run.addedTtftMicros(), 99));
      }
    }
    System.out.println();
    Map<String, StreamingTotals> totals = new LinkedHashMap<>();
    runs.forEach((dialect, results) -> totals.put(dialect, StreamingTotals.of(results)));
    StreamingTotals canonical = totals.get(CanonicalBenchDialect.NAME);
    System.out.println("| dialect | turns | turns/s | × canonical | added TTFT p50 | added TTFT p99 | p50 − canonical's |"
        + " turn p50 | × canonical |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    totals.forEach((dialect, total) -> System.out.printf(
        "| %s | %d | %.1f | %.3f | %.1f ms | %.1f ms | %+.1f ms | %.1f ms | %.3f |%n", dialect, total.turns(),
        total.turnsPerSecond(), total.turnsPerSecond() / canonical.turnsPerSecond(), millis(total.addedTtft(), 50),
        millis(total.addedTtft(), 99), millis(total.addedTtft(), 50) - millis(canonical.addedTtft(), 50),
        millis(total.turn(), 50), millis(total.turn(), 50) / Math.max(0.001, millis(canonical.turn(), 50))));
  }

  private static double millis(Histogram micros, double percentile) {
    return micros.getValueAtPercentile(percentile) / 1000.0;
  }
}
