package dev.colloquy.bench;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.PlannedPort;
import dev.colloquy.persistence.readside.ReadSide;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Crash proof: a node (a process of its own, on an embedded PostgreSQL) under a steady load of
 * streamed turns from concurrent clients is killed with SIGKILL every few seconds and started again
 * on the same data directory, while the clients retry with their idempotency keys. Each kill comes a
 * random few seconds after the restarted node has served its first turn, so that it always lands
 * among turns in flight. Afterwards every turn the server acknowledged is held against the journal
 * (see {@link ChaosAudit}), and the read side against a rebuild of it from the journal. Exits 1 when
 * a promise did not hold.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
    description = "Kill -9 a loaded node again and again; check that no acknowledged turn is lost or doubled; prints Markdown.")
final class ChaosBench implements Callable<Integer> {

  private static final Duration CLIENTS_FINISH = Duration.ofMinutes(10);
  private static final Duration READ_SIDE_CATCH_UP = Duration.ofMinutes(5);
  private static final Duration FIRST_TURN_WAIT = Duration.ofMinutes(5);

  @Option(names = "--cycles", defaultValue = "100", description = "Kills and restarts (default ${DEFAULT-VALUE})")
  int cycles;

  @Option(names = "--clients", defaultValue = "8", description = "Concurrent clients, a session each (default ${DEFAULT-VALUE})")
  int clients;

  @Option(names = "--kill-after-ms", defaultValue = "3000",
      description = "Mean time the node runs after it served its first turn before it is killed; each run lasts 0.5 to 1.5 times it (default ${DEFAULT-VALUE})")
  long killAfterMs;

  @Option(names = "--tokens", defaultValue = "20", description = "Tokens per answer of the mock model (default ${DEFAULT-VALUE})")
  int tokens;

  @Option(names = "--delay-ms", defaultValue = "40", description = "Mock inter-token delay (default ${DEFAULT-VALUE})")
  long delayMs;

  @Option(names = "--seed", defaultValue = "10", description = "Seed of the kill times (default ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--port", defaultValue = "0", description = "The node's HTTP port (default: a free one)")
  int port;

  @Option(names = "--cluster-port", defaultValue = "0", description = "The node's cluster (Artery) port (default: a free one)")
  int clusterPort;

  @Option(names = "--keep-data", description = "Keep the node's data directory and log for a look afterwards")
  boolean keepData;

  /** What one run found, for the command's table and the suite's smoke test. */
  record Outcome(int cycles, int clients, int turnsSent, ChaosAudit.Findings audit, boolean readSideMatches,
      List<Duration> timesToHealthy, List<Duration> timesToServing) {

    boolean holds() {
      return audit.holds() && readSideMatches;
    }
  }

  @Override
  public Integer call() throws Exception {
    System.out.println(Machine.describe(true));
    Outcome outcome = run();
    System.out.println();
    System.out.println(markdown(outcome, killAfterMs));
    outcome.audit().problems().stream().limit(20).forEach(problem -> System.out.println("PROBLEM: " + problem));
    return outcome.holds() ? 0 : 1;
  }

  Outcome run() throws Exception {
    Path dataDir = Files.createTempDirectory("colloquy-chaos");
    Path log = Files.createTempFile("colloquy-chaos-node", ".log");
    MockLlmSettings model = MockLlmSettings.defaults().withTokens(tokens)
        .withDelays(Duration.ofMillis(100), Duration.ofMillis(delayMs));
    Random random = new Random(seed);
    AtomicBoolean stopping = new AtomicBoolean();
    List<ChaosClient> running = new ArrayList<>();
    List<Duration> timesToHealthy = new ArrayList<>();
    List<Duration> timesToServing = new ArrayList<>();
    AtomicLong acknowledgements = new AtomicLong();
    try (MockLlmServer mock = MockLlmServer.start(model, "127.0.0.1", 0);
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      ChaosNode node = new ChaosNode(dataDir, port == 0 ? PlannedPort.forAnotherServer() : port, clusterPort, mock.baseUrl(), log);
      try {
        node.start();
        for (int i = 0; i < clients; i++) {
          ChaosClient client = new ChaosClient("client " + i, node.baseUrl(), node.apiKey(), stopping, acknowledgements);
          running.add(client);
          threads.execute(client);
        }
        awaitAcknowledgement(acknowledgements, acknowledgements.get());
        for (int cycle = 1; cycle <= cycles; cycle++) {
          LockSupport.parkNanos(Duration.ofMillis(killAfterMs / 2 + (long) (random.nextDouble() * killAfterMs)).toNanos());
          node.kill();
          long killed = System.nanoTime();
          long acknowledgedBefore = acknowledgements.get();
          timesToHealthy.add(node.start());
          awaitAcknowledgement(acknowledgements, acknowledgedBefore);
          timesToServing.add(Duration.ofNanos(System.nanoTime() - killed));
          System.err.printf("cycle %d/%d: ready %d ms after the kill, serving turns after %d ms; %d turns ended so far%n",
              cycle, cycles, timesToHealthy.getLast().toMillis(), timesToServing.getLast().toMillis(),
              running.stream().mapToInt(client -> client.turns().size()).sum());
        }
        stopping.set(true);
        threads.shutdown();
        if (!threads.awaitTermination(CLIENTS_FINISH.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException("the clients did not finish their last turns within " + CLIENTS_FINISH);
        }
        List<ChaosClient.Turn> turns = running.stream().flatMap(client -> client.turns().stream()).toList();
        List<String> sessions = running.stream().flatMap(client -> client.sessions().stream()).toList();
        ChaosAudit.Findings audit = ChaosAudit.of(node, turns, sessions);
        running.stream().filter(client -> client.crashed() != null)
            .forEach(client -> audit.problems().add("a client stopped: " + client.crashed()));
        boolean readSideMatches = readSideMatchesARebuild(node, dataDir);
        return new Outcome(cycles, clients, turns.size(), audit, readSideMatches, timesToHealthy, timesToServing);
      } catch (Exception | Error e) {
        // The clients retry their turns until the node answers; with the run failed it never will, and
        // closing the executor would wait for them for ever: interrupt them so the failure is reported.
        threads.shutdownNow();
        throw e;
      } finally {
        stopping.set(true);
        node.stop();
      }
    } finally {
      if (keepData) {
        System.err.println("data kept in " + dataDir + ", node log in " + log);
      } else {
        delete(dataDir);
        Files.deleteIfExists(log);
      }
    }
  }

  /** Waits until a client has been told that a turn started after {@code before} such acknowledgements. */
  private static void awaitAcknowledgement(AtomicLong acknowledgements, long before) {
    long deadline = System.nanoTime() + FIRST_TURN_WAIT.toNanos();
    while (acknowledgements.get() <= before) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no client got a turn started within " + FIRST_TURN_WAIT + " of a restart");
      }
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }

  /** Dumps the read side, rebuilds it from the journal with the node stopped, starts the node and dumps again. */
  private static boolean readSideMatchesARebuild(ChaosNode node, Path dataDir) throws Exception {
    ChaosReadSide.awaitCaughtUp(node, READ_SIDE_CATCH_UP);
    List<String> before = ChaosReadSide.dump(node);
    node.stop();
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.parseMap(
        Map.of("colloquy.storage.data-dir", dataDir.toString())).withFallback(ConfigFactory.load()));
    try (Database database = Database.openExisting(settings.storage())) {
      ReadSide.rebuild(database.dataSource());
    }
    node.start();
    ChaosReadSide.awaitCaughtUp(node, READ_SIDE_CATCH_UP);
    List<String> after = ChaosReadSide.dump(node);
    if (!before.equals(after)) {
      for (int i = 0; i < Math.max(before.size(), after.size()); i++) {
        String was = i < before.size() ? before.get(i) : "(none)";
        String is = i < after.size() ? after.get(i) : "(none)";
        if (!was.equals(is)) {
          System.out.println("READ SIDE DIFFERS at row " + i + ":\n  before rebuild: " + was + "\n  after rebuild:  " + is);
          break;
        }
      }
    }
    return before.equals(after) && !before.isEmpty();
  }

  static String markdown(Outcome outcome, long killAfterMs) {
    ChaosAudit.Findings audit = outcome.audit();
    List<Long> millis = outcome.timesToHealthy().stream().map(Duration::toMillis).sorted().toList();
    List<Long> serving = outcome.timesToServing().stream().map(Duration::toMillis).sorted().toList();
    return "| cycles | clients | kill after | turns sent | acknowledged | journaled | ended (journal) | lost | duplicated"
        + " | not ended once | sequence gaps | told otherwise | read side = rebuild | healthy p50 | p99 | max"
        + " | serving p50 | p99 |\n"
        + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        + String.format("| %d | %d | %.1f–%.1f s | %,d | %,d | %,d | %s | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |",
            outcome.cycles(), outcome.clients(), killAfterMs / 2000.0, killAfterMs * 1.5 / 1000, outcome.turnsSent(),
            audit.acknowledged(), audit.journaled(), audit.endings().toString().replace("=", ": "), audit.lost(),
            audit.duplicated(), audit.unended() + audit.endedTwice(), audit.sequenceGaps(), audit.toldOtherwise(),
            outcome.readSideMatches() ? "yes" : "NO", seconds(millis, 50), seconds(millis, 99), seconds(millis, 100),
            seconds(serving, 50), seconds(serving, 99));
  }

  private static String seconds(List<Long> sorted, double percentile) {
    if (sorted.isEmpty()) {
      return "—";
    }
    int index = Math.min(sorted.size() - 1, Math.max(0, (int) Math.ceil(percentile / 100 * sorted.size()) - 1));
    return String.format("%.1f s", sorted.get(index) / 1000.0);
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }
}
