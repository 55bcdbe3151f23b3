package dev.colloquy.bench;

import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The cost of authentication: per request in this JVM for each kind of credential against no
 * authentication, then the streaming workload on a real node in interleaved pairs of runs, one with
 * the development tenant's API key and one with an HS256 JWT. The API has no unauthenticated mode, so
 * the streaming comparison is between the key's cached path and the JWT's verified signature.
 */
@Command(name = "auth", mixinStandardHelpOptions = true,
    description = "Cost of authentication per request (API key, HS256 and RS256 JWT) and the streaming benchmark"
        + " with an API key vs. an HS256 JWT; prints a Markdown report.")
final class AuthBench implements Callable<Integer> {

  @Option(names = "--calls", defaultValue = "20000", description = "Timed requests per kind of credential (default ${DEFAULT-VALUE})")
  int calls;

  @Option(names = "--warm-up-calls", defaultValue = "20000",
      description = "Untimed requests per kind of credential first (default ${DEFAULT-VALUE})")
  int warmUpCalls;

  @Option(names = "--pairs", defaultValue = "3",
      description = "Streaming runs per credential, key and JWT taking turns; 0 skips streaming (default ${DEFAULT-VALUE})")
  int pairs;

  @Option(names = "--sessions", defaultValue = "50", description = "Concurrent sessions per streaming run (default ${DEFAULT-VALUE})")
  int sessions;

  @Option(names = "--turns", defaultValue = "3", description = "Turns per session (default ${DEFAULT-VALUE})")
  int turns;

  @Option(names = "--tokens", defaultValue = "32", description = "Tokens per answer (default ${DEFAULT-VALUE})")
  int tokens;

  @Option(names = "--ttft-ms", defaultValue = "200", description = "Mock time to first token (default ${DEFAULT-VALUE})")
  long ttftMs;

  @Option(names = "--delay-ms", defaultValue = "20", description = "Mock inter-token delay (default ${DEFAULT-VALUE})")
  long delayMs;

  @Option(names = "--ramp-up-ms", defaultValue = "2000",
      description = "Spread each run's first turns over this long (default ${DEFAULT-VALUE})")
  long rampUpMs;

  private static final String API_KEY = "API key";
  private static final String JWT = "HS256 JWT";

  @Override
  public Integer call() throws Exception {
    System.out.println(Machine.describe(true));
    System.out.println();
    List<AuthCost.Row> costs = AuthCost.measure(calls, warmUpCalls);
    printCosts(costs);
    if (pairs > 0) {
      System.out.println();
      Map<String, List<StreamingLoad.Result>> runs = streaming();
      printStreaming(runs, costs);
    }
    System.out.println();
    System.out.println("Load average at the end: " + Machine.load());
    return 0;
  }

  private void printCosts(List<AuthCost.Row> rows) {
    AuthCost.Row baseline = rows.getFirst();
    System.out.printf("Cost per request, in-process through pekko-http routing to a trivial route (%d timed requests"
        + " each after %d untimed, in alternating batches):%n%n", calls, warmUpCalls);
    System.out.println("| authentication | p50 | p99 | added p50 | added p99 |");
    System.out.println("|---|---|---|---|---|");
    for (AuthCost.Row row : rows) {
      System.out.printf("| %s | %.1f µs | %.1f µs | %s | %s |%n", row.mode().label, row.p50Micros(), row.p99Micros(),
          row == baseline ? "–" : String.format("%.1f µs", row.p50Micros() - baseline.p50Micros()),
          row == baseline ? "–" : String.format("%.1f µs", row.p99Micros() - baseline.p99Micros()));
    }
  }

  /** Pairs of runs on one node, the order switching each pair so that neither credential always goes first. */
  private Map<String, List<StreamingLoad.Result>> streaming() throws Exception {
    String secret = HexFormat.of().formatHex(random32());
    MockLlmSettings mockSettings = MockLlmSettings.defaults().withTokens(tokens)
        .withDelays(Duration.ofMillis(ttftMs), Duration.ofMillis(delayMs));
    try (MockLlmServer mock = MockLlmServer.start(mockSettings, "127.0.0.1", 0);
        BenchNode node = BenchNode.start(Map.of(
            "colloquy.llm.base-url", mock.baseUrl(),
            "colloquy.llm.model", "mock",
            "colloquy.session.passivation-timeout", "1h",
            "colloquy.auth.jwt.secret", secret));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      StreamingLoad.Shape shape = new StreamingLoad.Shape(sessions, turns, ttftMs, rampUpMs);
      String base = node.colloquy().baseUrl();
      Map<String, StreamingLoad> loads = new LinkedHashMap<>();
      loads.put(API_KEY, new StreamingLoad(client, base, "Bearer " + DevKey.of(node.colloquy()), shape));
      // The development tenant, named in the token as an identity provider would.
      loads.put(JWT, new StreamingLoad(client, base, "Bearer " + BenchTokens.hs256(secret, "dev"), shape));
      Map<String, List<StreamingLoad.Result>> runs = new LinkedHashMap<>();
      for (Map.Entry<String, StreamingLoad> load : loads.entrySet()) {
        load.getValue().run(load.getValue().openSessions(1));
        runs.put(load.getKey(), new ArrayList<>());
      }
      List<String> order = new ArrayList<>(loads.keySet());
      for (int pair = 0; pair < pairs; pair++) {
        for (String credential : order) {
          StreamingLoad load = loads.get(credential);
          runs.get(credential).add(load.run(load.openSessions(sessions)));
        }
        order = order.reversed();
      }
      return runs;
    }
  }

  private void printStreaming(Map<String, List<StreamingLoad.Result>> runs, List<AuthCost.Row> costs) {
    System.out.printf("Streaming, %d pairs of runs on one node, API key and HS256 JWT taking turns (%d sessions × %d"
        + " turns per run, %d tokens/turn, mock %d ms / %d ms, ramp-up %d ms):%n%n",
        pairs, sessions, turns, tokens, ttftMs, delayMs, rampUpMs);
    System.out.println("| pair | credential | turns/s | added TTFT p50 | added TTFT p99 |");
    System.out.println("|---|---|---|---|---|");
    for (int pair = 0; pair < pairs; pair++) {
      for (Map.Entry<String, List<StreamingLoad.Result>> credential : runs.entrySet()) {
        StreamingLoad.Result run = credential.getValue().get(pair);
        System.out.printf("| %d | %s | %.1f | %.1f ms | %.1f ms |%n", pair + 1, credential.getKey(),
            run.turnsPerSecond(), millis(run.addedTtftMicros(), 50), millis(run.addedTtftMicros(), 99));
      }
    }
    System.out.println();
    System.out.println("| credential | turns | turns/s | added TTFT p50 | added TTFT p99 | turn p50 |");
    System.out.println("|---|---|---|---|---|---|");
    Map<String, StreamingTotals> totals = new LinkedHashMap<>();
    runs.forEach((credential, results) -> totals.put(credential, StreamingTotals.of(results)));
    totals.forEach((credential, total) -> System.out.printf("| %s | %d | %.1f | %.1f ms | %.1f ms | %.1f ms |%n",
        credential, total.turns(), total.turnsPerSecond(), millis(total.addedTtft(), 50),
        millis(total.addedTtft(), 99), millis(total.turn(), 50)));
    StreamingTotals key = totals.get(API_KEY);
    StreamingTotals jwt = totals.get(JWT);
    System.out.printf("| JWT / key | | %.3f | %.3f | %.3f | %.3f |%n", jwt.turnsPerSecond() / key.turnsPerSecond(),
        ratio(jwt.addedTtft(), key.addedTtft(), 50), ratio(jwt.addedTtft(), key.addedTtft(), 99),
        ratio(jwt.turn(), key.turn(), 50));
    System.out.println();
    double turnMicros = key.turn().getValueAtPercentile(50);
    for (AuthCost.Row row : costs.subList(1, costs.size())) {
      double added = row.p50Micros() - costs.getFirst().p50Micros();
      System.out.printf("%s adds %.1f µs per request (p50), %.4f %% of a turn's p50 of %.1f ms.%n",
          row.mode().label, added, 100 * added / turnMicros, turnMicros / 1000);
    }
  }

  private static byte[] random32() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return bytes;
  }

  private static double millis(Histogram micros, double percentile) {
    return micros.getValueAtPercentile(percentile) / 1000.0;
  }

  private static double ratio(Histogram of, Histogram to, double percentile) {
    return (double) of.getValueAtPercentile(percentile) / Math.max(1, to.getValueAtPercentile(percentile));
  }
}
