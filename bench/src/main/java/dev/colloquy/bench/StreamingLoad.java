package dev.colloquy.bench;

import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;

/**
 * The streaming workload against a running node, with one credential and one wire dialect: sessions
 * opened as the dialect's client opens them, then each running its turns one after another over SSE
 * from its own client (a virtual thread).
 */
final class StreamingLoad {

  /** The workload: concurrent sessions, turns each, the mock's time to first token, the ramp-up of the first turns. */
  record Shape(int sessions, int turns, long ttftMs, long rampUpMs) {}

  /** What one run delivered; TTFT is measured at the client, minus the mock's own. */
  record Result(int turns, long tokens, double seconds, Histogram addedTtftMicros, Histogram interTokenMicros,
      Histogram turnMicros) {

    double turnsPerSecond() {
      return turns / seconds;
    }

    double tokensPerSecond() {
      return tokens / seconds;
    }
  }

  private final BenchDialect.Target target;
  private final BenchDialect dialect;
  private final Shape shape;

  /** The canonical API; {@code authorization} is the whole header value, e.g. {@code Bearer ck_…}. */
  StreamingLoad(HttpClient client, String base, String authorization, Shape shape) {
    this(new BenchDialect.Target(client, base, authorization), BenchDialect.ALL.get(CanonicalBenchDialect.NAME), shape);
  }

  StreamingLoad(BenchDialect.Target target, BenchDialect dialect, Shape shape) {
    this.target = target;
    this.dialect = dialect;
    this.shape = shape;
  }

  List<String> openSessions(int count) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(dialect.open(target));
    }
    return ids;
  }

  /** Runs the shape's turns in each of {@code ids} concurrently. */
  Result run(List<String> ids) throws Exception {
    Result result = new Result(ids.size() * shape.turns(), 0, 0, new Histogram(3), new Histogram(3), new Histogram(3));
    long started = System.nanoTime();
    long tokens = 0;
    try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Long>> runs = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        long delayMs = shape.rampUpMs() * i / ids.size();
        runs.add(clients.submit(() -> {
          Thread.sleep(delayMs); // a benchmark's ramp-up: sessions arrive over time, as users do
          return runTurns(id, result);
        }));
      }
      for (Future<Long> run : runs) {
        tokens += run.get();
      }
    }
    return new Result(result.turns(), tokens, (System.nanoTime() - started) / 1e9, result.addedTtftMicros(),
        result.interTokenMicros(), result.turnMicros());
  }

  /** Runs the session's turns one after another; returns the tokens received. */
  private long runTurns(String sessionId, Result into) throws Exception {
    long received = 0;
    for (int turn = 0; turn < shape.turns(); turn++) {
      long sent = System.nanoTime();
      long[] previous = {-1};
      long[] count = {0};
      dialect.turn(target, sessionId, "benchmark question " + turn, now -> {
        synchronized (into) {
          if (previous[0] < 0) {
            into.addedTtftMicros().recordValue(Math.max(0, (now - sent) / 1000 - shape.ttftMs() * 1000));
          } else {
            into.interTokenMicros().recordValue(Math.max(0, (now - previous[0]) / 1000));
          }
        }
        previous[0] = now;
        count[0]++;
      });
      received += count[0];
      synchronized (into) {
        into.turnMicros().recordValue((System.nanoTime() - sent) / 1000);
      }
    }
    return received;
  }
}
