package dev.colloquy.bench;

import dev.colloquy.bench.cluster.FailoverScenario;
import dev.colloquy.bench.cluster.LocalCluster;
import dev.colloquy.bench.cluster.RollingRestart;
import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Three {@code colloquy serve} processes on one PostgreSQL, on loopback: kills the node hosting most
 * of the streaming sessions with SIGKILL, again and again, and measures how long the clients wait
 * for their sessions to be served again, what they received twice and what the journal lost; then a
 * rolling restart (SIGTERM each node in turn) under load.
 */
@Command(name = "failover", mixinStandardHelpOptions = true,
    description = "kill -9 a node of a three-node cluster mid-stream, N times, then a rolling restart under load; prints a Markdown report.")
final class FailoverBench implements Callable<Integer> {

  @Option(names = "--rounds", defaultValue = "20", description = "Kills (default ${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--sessions", defaultValue = "6", description = "Streaming sessions per kill (default ${DEFAULT-VALUE})")
  int sessions;

  @Option(names = "--tokens", defaultValue = "150", description = "Tokens per answer (default ${DEFAULT-VALUE})")
  int tokens;

  @Option(names = "--delay-ms", defaultValue = "40", description = "Mock inter-token delay (default ${DEFAULT-VALUE})")
  long delayMs;

  @Option(names = "--interrupt", description = "The tenant does not let turns run again: they end INTERRUPTED")
  boolean interrupt;

  @Option(names = "--rolling-clients", defaultValue = "6",
      description = "Clients running turns during the rolling restart; 0 skips it (default ${DEFAULT-VALUE})")
  int rollingClients;

  @Option(names = "--logs", paramLabel = "DIR",
      description = "Copy the nodes' logs here at the end, to read each failover's phases beside the kill times printed")
  java.nio.file.Path logs;

  @Override
  public Integer call() throws Exception {
    MockLlmSettings model = MockLlmSettings.defaults().withTokens(tokens)
        .withDelays(Duration.ofMillis(100), Duration.ofMillis(delayMs));
    String answer = model.text(tokens);
    System.out.println("## Failover: kill -9 of a node of three, mid-stream\n");
    System.out.println("`colloquy bench failover --rounds " + rounds + " --sessions " + sessions + " --tokens " + tokens
        + " --delay-ms " + delayMs + (interrupt ? " --interrupt" : "") + "`  ");
    System.out.println(Machine.describe(false) + "  ");
    try (LocalCluster cluster = LocalCluster.start(3, model, Map.of())) {
      try {
        run(cluster, answer);
      } finally {
        if (logs != null) {
          cluster.copyLogs(logs);
        }
      }
    }
    System.out.println("Load average after the run: " + Machine.load());
    return 0;
  }

  private void run(LocalCluster cluster, String answer) throws Exception {
    cluster.configureTenant("{\"continue_after_failover\": " + !interrupt + "}");
    List<FailoverScenario.Round> done = new ArrayList<>();
    long roundsStarted = System.nanoTime();
    for (int round = 1; round <= rounds; round++) {
      long started = System.nanoTime();
      // The killed node starts again as soon as it has been removed, while the clients finish.
      FailoverScenario.Round result = FailoverScenario.run(cluster, new FailoverScenario.Options(sessions,
          Math.max(5, tokens / 6), Duration.ofMinutes(3), answer), FailoverScenario.KILL_AND_RESTART);
      done.add(result);
      cluster.node(result.victim()).awaitReady(LocalCluster.READY_TIMEOUT);
      System.out.printf("round %d (%d s): node %d killed at %s, %d turns affected, served again after %s, removed after %s%s%n",
          round, Duration.ofNanos(System.nanoTime() - started).toSeconds(), result.victim(), result.killedAt(),
          result.affected().size(),
          result.affected().stream().map(turn -> turn.sessionId() + " " + millis(turn.resumedAfter())).toList(),
          millis(result.victimRemovedAfter()), result.problems(Duration.ofSeconds(10)).isEmpty() ? ""
              : ", problems: " + result.problems(Duration.ofSeconds(10)));
    }
    System.out.printf("%nrounds: %d s in all, %d s per round%n", Duration.ofNanos(System.nanoTime() - roundsStarted).toSeconds(),
        rounds == 0 ? 0 : Duration.ofNanos(System.nanoTime() - roundsStarted).toSeconds() / rounds);
    System.out.println();
    System.out.println(table(done));
    if (rollingClients > 0) {
      long rollingStarted = System.nanoTime();
      RollingRestart.Result rolling = RollingRestart.run(cluster, rollingClients, answer);
      System.out.printf("%nrolling restart: %d s%n", Duration.ofNanos(System.nanoTime() - rollingStarted).toSeconds());
      System.out.println(rollingTable(rolling));
    }
  }

  private static String table(List<FailoverScenario.Round> rounds) {
    List<Long> resumed = new ArrayList<>();
    List<Long> removed = new ArrayList<>();
    List<Integer> lost = new ArrayList<>();
    int affected = 0;
    int resent = 0;
    int problems = 0;
    for (FailoverScenario.Round round : rounds) {
      for (FailoverScenario.TurnReport turn : round.affected()) {
        affected++;
        resumed.add(turn.resumedAfter() == null ? Long.MAX_VALUE : turn.resumedAfter().toMillis());
        lost.add(turn.framesLost());
      }
      resent += round.turns().stream().mapToInt(FailoverScenario.TurnReport::duplicates).sum();
      removed.add(round.victimRemovedAfter() == null ? Long.MAX_VALUE : round.victimRemovedAfter().toMillis());
      problems += round.problems(Duration.ofSeconds(10)).isEmpty() ? 0 : 1;
    }
    resumed.sort(null);
    removed.sort(null);
    lost.sort(null);
    return String.join("\n",
        "| rounds | turns affected | kill → first resumed frame p50 / p99 / max | kill → node removed p50 / max "
            + "| frames re-sent | frames lost per turn: max (bound 128) | rounds with a problem |",
        "|---|---|---|---|---|---|---|",
        String.format("| %d | %d | %d / %d / %d ms | %d / %d ms | %d | %d | %d |", rounds.size(), affected,
            percentile(resumed, 50), percentile(resumed, 99), resumed.isEmpty() ? 0 : resumed.getLast(),
            percentile(removed, 50), removed.isEmpty() ? 0 : removed.getLast(), resent,
            lost.isEmpty() ? 0 : lost.getLast(), problems));
  }

  private static String rollingTable(RollingRestart.Result result) {
    return String.join("\n",
        "| turns acknowledged | completed | not completed | client errors | starts retried (503 / refused) "
            + "| streams resumed | frames re-sent | exit codes | SIGTERM → exit |",
        "|---|---|---|---|---|---|---|---|---|",
        String.format("| %d | %d | %d | %d | %d | %d | %d | %s | %s |", result.turnsAcknowledged(),
            result.turnsCompleted(), result.turnsNotCompleted().size(), result.clientErrors().size(),
            result.retriedStarts(), result.resumes(), result.duplicates(), result.exitCodes(),
            result.stopTimes().stream().map(FailoverBench::millis).toList()))
        + (result.turnsNotCompleted().isEmpty() ? "" : "\n\nNot completed: " + result.turnsNotCompleted())
        + (result.clientErrors().isEmpty() ? "" : "\n\nClient errors: " + result.clientErrors());
  }

  private static long percentile(List<Long> sorted, int percentile) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }

  private static String millis(Duration duration) {
    return duration == null ? "never" : duration.toMillis() + " ms";
  }
}
