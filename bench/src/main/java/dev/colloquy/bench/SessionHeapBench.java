package dev.colloquy.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.app.LiveSessions;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.http.SessionRoutes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Heap per session, active idle and passivated, on one node, in phases: a warm-up phase, then one
 * phase per N. A phase opens N new sessions (the entity's {@code Open} through cluster sharding, as
 * the HTTP route sends it) and runs their turns over HTTP (the offline responder answers), closes
 * its HTTP client and reads the live heap (full GCs until stable) while cluster
 * sharding reports them all in memory and none runs a turn (active idle); then waits until sharding
 * reports none of them in memory (passivated) and reads the live heap again. Each figure is
 * relative to the heap at the start of its phase, when every earlier session was passivated, so
 * the passivated figure is what N more passivated sessions cost. The bench keeps no reference to
 * the sessions it opened.
 */
@Command(name = "session-heap", mixinStandardHelpOptions = true,
    description = "Heap per active idle and per passivated session at N sessions; prints a Markdown table.")
final class SessionHeapBench implements Callable<Integer> {

  private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(60);

  @Option(names = "--sessions", split = ",", defaultValue = "10000,100000", paramLabel = "N",
      description = "Sessions per phase, one phase each (default ${DEFAULT-VALUE})")
  List<Integer> sessions;

  @Option(names = "--warm-up", defaultValue = "1000", description = "Sessions of the warm-up phase (default ${DEFAULT-VALUE})")
  int warmUp;

  @Option(names = "--turns", defaultValue = "0", description = "Turns per session before it idles (default ${DEFAULT-VALUE})")
  int turns;

  @Option(names = "--passivation-timeout", defaultValue = "4m",
      description = "The node's passivation timeout; must exceed the time to open a phase's sessions (default ${DEFAULT-VALUE})")
  String passivationTimeout;

  @Option(names = "--concurrency", defaultValue = "32", description = "Concurrent HTTP clients opening sessions (default ${DEFAULT-VALUE})")
  int concurrency;

  record Row(String phase, int sessions, int turns, double openSeconds, long before, long active, int liveWhenActive,
      long passivated, int liveWhenPassivated, String load) {

    double activeBytesPerSession() {
      return (active - before) / (double) sessions;
    }

    double passivatedBytesPerSession() {
      return (passivated - before) / (double) sessions;
    }

    static String header() {
      return "| phase | sessions | turns each | opened in | heap before | active idle: heap | in memory | per session "
          + "| passivated: heap | in memory | per session | load (1/5/15 min) |\n"
          + "|---|---|---|---|---|---|---|---|---|---|---|---|";
    }

    String markdown() {
      return String.format("| %s | %,d | %d | %.1f s (%.0f/s) | %.1f MiB | %.1f MiB | %,d | %.2f KiB | %.1f MiB | %,d | %+.0f B | %s |",
          phase, sessions, turns, openSeconds, sessions / openSeconds, mib(before), mib(active), liveWhenActive,
          activeBytesPerSession() / 1024, mib(passivated), liveWhenPassivated, passivatedBytesPerSession(), load);
    }

    private static double mib(long bytes) {
      return bytes / (double) (1 << 20);
    }
  }

  @Override
  public Integer call() throws Exception {
    try (BenchNode node = BenchNode.start(Map.of("colloquy.session.passivation-timeout", passivationTimeout))) {
      System.out.println(Machine.describe(node.colloquy().database().embedded()));
      System.out.printf("Passivation timeout %s, %d concurrent clients.%n%n", passivationTimeout, concurrency);
      System.out.println(Row.header());
      long before = UsedHeap.afterFullGc();
      Row warm = measure(node.colloquy(), "warm-up", warmUp, turns, concurrency, before);
      System.out.println(warm.markdown());
      before = warm.passivated();
      for (int n : sessions) {
        Row row = measure(node.colloquy(), "measured", n, turns, concurrency, before);
        System.out.println(row.markdown());
        before = row.passivated();
      }
    }
    return 0;
  }

  /** One phase; {@code before} is the live heap with every earlier session passivated. */
  static Row measure(Colloquy colloquy, String phase, int n, int turns, int concurrency, long before) throws Exception {
    Duration passivation = colloquy.settings().session().passivationTimeout();
    long started = System.nanoTime();
    openSessions(colloquy, n, turns, concurrency);
    double openSeconds = (System.nanoTime() - started) / 1e9;
    int liveWhenActive = LiveSessions.ids(colloquy.system()).size();
    if (liveWhenActive < n) {
      throw new IllegalStateException((n - liveWhenActive) + " of " + n + " sessions passivated before the"
          + " measurement (opening took " + Math.round(openSeconds) + " s): raise --passivation-timeout");
    }
    long active = UsedHeap.afterFullGc();
    long deadline = System.nanoTime() + passivation.plusMinutes(2).toNanos();
    int live = LiveSessions.ids(colloquy.system()).size();
    while (live > 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
      live = LiveSessions.ids(colloquy.system()).size();
    }
    long passivated = UsedHeap.afterFullGc();
    return new Row(phase, n, turns, openSeconds, before, active, liveWhenActive, passivated, live, Machine.load());
  }

  /** Opens a session as {@code POST /v1/sessions} does, through cluster sharding, without the HTTP round trip. */
  private static String open(Colloquy colloquy) {
    String sessionId = UUID.randomUUID().toString();
    ChatSession.SessionAnswer reply = ClusterSharding.get(colloquy.system())
        .entityRefFor(ChatSession.ENTITY_KEY, sessionId)
        .<ChatSession.SessionAnswer>ask(replyTo -> new ChatSession.Open(SessionRoutes.DEFAULT_TENANT, null, null,
            JsonNodeFactory.instance.objectNode(), replyTo), OPEN_TIMEOUT)
        .toCompletableFuture().join();
    if (!(reply instanceof ChatSession.SessionReply)) {
      throw new IllegalStateException("open session: " + reply);
    }
    return sessionId;
  }

  /** Opens the sessions and runs their turns over HTTP; remembers none of them. */
  private static void openSessions(Colloquy colloquy, int n, int turns, int concurrency) throws Exception {
    AtomicInteger next = new AtomicInteger();
    try (BenchClient client = new BenchClient(colloquy);
        ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Void>> done = new ArrayList<>();
      for (int w = 0; w < concurrency; w++) {
        done.add(workers.submit(() -> {
          while (next.getAndIncrement() < n) {
            String sessionId = open(colloquy);
            for (int t = 0; t < turns; t++) {
              client.turn(sessionId, "What does the manual say about question " + t + "?");
            }
          }
          return null;
        }));
      }
      for (Future<Void> worker : done) {
        worker.get();
      }
    }
  }
}
