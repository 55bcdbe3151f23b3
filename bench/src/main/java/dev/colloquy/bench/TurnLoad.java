package dev.colloquy.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okio.BufferedSource;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop streaming clients: N streams, each running streamed turns one after another until the
 * time is up, against a {@link Target} (the engine, or the mock itself for the floor). Time to first
 * token is measured from sending the request to the first token's line; inter-token gaps between
 * consecutive token lines of one turn. Each stream is a virtual thread reading its response with
 * OkHttp over HTTP/1.1, a connection per stream as browsers' SSE has: light enough to hold ten
 * thousand streams in one process.
 */
final class TurnLoad {

  /** What one line of a streamed response means. */
  enum Line { TOKEN, COMPLETED, FAILED, OTHER }

  /** Whom the clients talk to, and how to read its stream; {@link #reader()} is called once per turn. */
  interface Target {
    Request request(int stream, int turn);

    LineReader reader();
  }

  interface LineReader {
    Line read(String line);
  }

  /** How the clients run: streams, how long, how their first turns are spread, and a cap on turns per stream. */
  record Shape(int streams, Duration duration, Duration rampUp, int maxTurnsPerStream) {}

  /**
   * What one run delivered. {@code refused} counts the requests refused before they became turns (503
   * or 429, retried after their Retry-After as a client would); {@code failedTurns} the turns that
   * did not complete.
   */
  record Result(int streams, long turns, long failedTurns, long refused, long tokens, double seconds,
      Histogram ttftMicros, Histogram interTokenMicros, int peakOpen, List<String> failures,
      Map<String, Long> failureKinds) {

    double turnsPerSecond() {
      return turns / seconds;
    }
  }

  private static final int FAILURES_KEPT = 5;
  private static final int MOST_ATTEMPTS = 100;
  /** How much of a failed turn's last line a failure keeps: its code and the start of its message. */
  private static final int FAILED_LINE_KEPT = 300;

  private TurnLoad() {}

  /** The clients' connections: every stream's kept for its next turn, no timeout on a long stream. */
  static OkHttpClient client() {
    return client(Protocol.HTTP_1_1);
  }

  /** Clients that share a few HTTP/2 connections (prior knowledge, no TLS), as the node does with the model. */
  static OkHttpClient http2Client() {
    return client(Protocol.H2_PRIOR_KNOWLEDGE);
  }

  private static OkHttpClient client(Protocol protocol) {
    return new OkHttpClient.Builder()
        .protocols(List.of(protocol))
        .connectionPool(new ConnectionPool(20_000, 5, TimeUnit.MINUTES))
        .readTimeout(Duration.ZERO)
        .callTimeout(Duration.ZERO)
        .build();
  }

  static Result run(OkHttpClient client, Target target, Shape shape) throws Exception {
    ConcurrentHistogram ttft = new ConcurrentHistogram(3);
    ConcurrentHistogram interToken = new ConcurrentHistogram(3);
    AtomicLong turns = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong tokens = new AtomicLong();
    AtomicInteger open = new AtomicInteger();
    AtomicInteger peakOpen = new AtomicInteger();
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    Map<String, Long> failureKinds = new ConcurrentHashMap<>();
    long started = System.nanoTime();
    long deadline = started + shape.duration().toNanos();
    try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < shape.streams(); i++) {
        int stream = i;
        long delayNanos = shape.rampUp().toNanos() * i / shape.streams();
        clients.submit(() -> {
          Thread.sleep(Duration.ofNanos(delayNanos)); // the ramp-up: streams arrive over time, as users do
          for (int turn = 0; turn < shape.maxTurnsPerStream() && System.nanoTime() < deadline; turn++) {
            try {
              long received = turn(client, target, stream, turn, ttft, interToken, open, peakOpen, refused);
              tokens.addAndGet(received);
              turns.incrementAndGet();
            } catch (Exception e) {
              failed.incrementAndGet();
              failureKinds.merge(kind(e), 1L, Long::sum);
              if (failures.size() < FAILURES_KEPT) {
                failures.add(described(e));
              }
            }
          }
          return null;
        });
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    return new Result(shape.streams(), turns.get(), failed.get(), refused.get(), tokens.get(), seconds, ttft,
        interToken, peakOpen.get(), List.copyOf(failures), new TreeMap<>(failureKinds));
  }

  private static final Pattern CODE = Pattern.compile("\"code\":\"([A-Z_]+)\"");

  /**
   * A failure counted by kind: a failed turn's error code, else the exception's class and whether it
   * came before the response (the request may or may not have reached the server) or in its stream
   * (an accepted turn's stream broke).
   */
  private static String kind(Exception failure) {
    Matcher code = CODE.matcher(String.valueOf(failure.getMessage()));
    if (code.find()) {
      return code.group(1);
    }
    if (failure instanceof NoResponse) {
      return failure.getCause().getClass().getSimpleName() + " before a response";
    }
    return failure.getClass().getSimpleName() + (failure instanceof IOException ? " in the stream" : "");
  }

  /** A request that got no response: connecting, sending it or reading its head failed. */
  private static final class NoResponse extends IOException {
    NoResponse(IOException cause) {
      super(cause.getClass().getSimpleName() + ": " + cause.getMessage() + " (before a response)", cause);
    }
  }

  /** The failure and its first cause: OkHttp's "exhausted all routes" says nothing of why a connect failed. */
  private static String described(Throwable failure) {
    String described = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    Throwable cause = failure.getCause();
    return cause == null ? described
        : described + " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
  }

  private static long turn(OkHttpClient client, Target target, int stream, int turn, Histogram ttft,
      Histogram interToken, AtomicInteger open, AtomicInteger peakOpen, AtomicLong refused) throws Exception {
    LineReader reader = target.reader();
    long sent;
    Response response;
    for (int attempt = 1; ; attempt++) {
      sent = System.nanoTime();
      try {
        response = client.newCall(target.request(stream, turn)).execute();
      } catch (IOException noResponse) {
        throw new NoResponse(noResponse);
      }
      int status = response.code();
      if ((status != 503 && status != 429) || attempt == MOST_ATTEMPTS) {
        break;
      }
      refused.incrementAndGet();
      String retryAfter = response.header("Retry-After", "1");
      response.close();
      // A refused turn is asked again when the server says, as a client does.
      Thread.sleep(Duration.ofSeconds(Long.parseLong(retryAfter.strip())));
    }
    peakOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
    try (Response streaming = response) {
      BufferedSource body = streaming.body().source();
      if (streaming.code() != 200) {
        throw new IllegalStateException("HTTP " + streaming.code() + " " + body.readUtf8());
      }
      long previous = -1;
      long received = 0;
      boolean completed = false;
      String line;
      while ((line = body.readUtf8Line()) != null) {
        switch (reader.read(line)) {
          case TOKEN -> {
            long now = System.nanoTime();
            if (previous < 0) {
              ttft.recordValue((now - sent) / 1000);
            } else {
              interToken.recordValue((now - previous) / 1000);
            }
            previous = now;
            received++;
          }
          // Read on to the end of the response, so that its connection is reused for the next turn.
          case COMPLETED -> completed = true;
          case FAILED -> throw new IllegalStateException("the turn failed after " + received + " tokens: "
              + line.substring(0, Math.min(line.length(), FAILED_LINE_KEPT)));
          case OTHER -> { }
        }
      }
      if (!completed) {
        throw new IllegalStateException("the stream ended without its last event after " + received + " tokens");
      }
      return received;
    } finally {
      open.decrementAndGet();
    }
  }
}
