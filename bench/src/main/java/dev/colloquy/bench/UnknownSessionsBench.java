package dev.colloquy.bench;

import dev.colloquy.app.LiveSessions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What requests for sessions that were never opened leave behind: N requests for random session
 * ids against a node (with the default passivation timeout of 2 minutes), then the session entities
 * sharding holds and {@code colloquy_sessions_active}, right after the last answer and once settled.
 */
@Command(name = "unknown-sessions", mixinStandardHelpOptions = true,
    description = "Requests for random session ids: what they cost in entities and time; prints Markdown.")
final class UnknownSessionsBench implements Callable<Integer> {

  private static final Duration SETTLE = Duration.ofSeconds(30);

  @Option(names = "--requests", defaultValue = "10000", description = "Requests for random ids (default ${DEFAULT-VALUE})")
  int requests;

  @Option(names = "--concurrency", defaultValue = "32", description = "Requests in flight at once (default ${DEFAULT-VALUE})")
  int concurrency;

  @Override
  public Integer call() throws Exception {
    try (BenchNode node = BenchNode.start(Map.of());
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      System.out.println(Machine.describe(node.colloquy().database().embedded()));
      String key = DevKey.of(node.colloquy());
      int entitiesBefore = LiveSessions.ids(node.colloquy().system()).size();
      double activeBefore = active(http, node, key);
      long started = System.nanoTime();
      int notFound = 0;
      Semaphore inFlight = new Semaphore(concurrency);
      try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
          inFlight.acquire();
          answers.add(clients.submit(() -> {
            try {
              return http.send(HttpRequest.newBuilder(URI.create(node.colloquy().baseUrl() + "/v1/sessions/" + UUID.randomUUID()))
                  .header("Authorization", "Bearer " + key).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            } finally {
              inFlight.release();
            }
          }));
        }
        for (Future<Integer> answer : answers) {
          notFound += answer.get() == 404 ? 1 : 0;
        }
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      int entitiesRightAfter = LiveSessions.ids(node.colloquy().system()).size();
      long settling = System.nanoTime();
      int entitiesSettled = entitiesRightAfter;
      while (entitiesSettled != entitiesBefore && System.nanoTime() - settling < SETTLE.toNanos()) {
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        entitiesSettled = LiveSessions.ids(node.colloquy().system()).size();
      }
      double settledIn = (System.nanoTime() - settling) / 1e9;
      System.out.printf("%n| requests | answered 404 | took | requests/s | entities before | right after the last answer"
          + " | settled (after) | colloquy_sessions_active before | after | load (1/5/15 min) |%n"
          + "|---|---|---|---|---|---|---|---|---|---|%n"
          + "| %,d | %,d | %.1f s | %,.0f | %d | %d | %d (%.1f s) | %.0f | %.0f | %s |%n",
          requests, notFound, seconds, requests / seconds, entitiesBefore, entitiesRightAfter, entitiesSettled, settledIn,
          activeBefore, active(http, node, key), Machine.load());
      return notFound == requests && entitiesSettled == entitiesBefore ? 0 : 1;
    }
  }

  private static double active(HttpClient http, BenchNode node, String key) throws Exception {
    String metrics = http.send(HttpRequest.newBuilder(URI.create(node.colloquy().baseUrl() + "/metrics"))
        .header("Authorization", "Bearer " + key).build(), HttpResponse.BodyHandlers.ofString()).body();
    return metrics.lines().filter(line -> line.startsWith("colloquy_sessions_active "))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
  }
}
