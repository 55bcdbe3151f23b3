package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The streaming workload against a running node, with one credential: sessions opened over the HTTP
 * API, then each running its turns one after another over SSE from its own client (a virtual thread).
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

  private final HttpClient client;
  private final String base;
  private final String authorization;
  private final Shape shape;

  /** {@code authorization} is the whole header value, e.g. {@code Bearer ck_…}. */
  StreamingLoad(HttpClient client, String base, String authorization, Shape shape) {
    this.client = client;
    this.base = base;
    this.authorization = authorization;
    this.shape = shape;
  }

  List<String> openSessions(int count) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + "/v1/sessions"))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
          .header("Authorization", authorization).build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 201) {
        throw new IllegalStateException("open session: " + response.statusCode() + " " + response.body());
      }
      ids.add(Json.MAPPER.readTree(response.body()).path("session_id").asText());
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
      HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/sessions/" + sessionId + "/turns"))
          .header("Accept", "text/event-stream").header("Content-Type", "application/json")
          .header("Authorization", authorization)
          .POST(HttpRequest.BodyPublishers.ofString("{\"message\":\"benchmark question " + turn + "\"}"))
          .build();
      long sent = System.nanoTime();
      HttpResponse<Stream<String>> response = client.send(request, HttpResponse.BodyHandlers.ofLines());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("turn: HTTP " + response.statusCode());
      }
      long previous = -1;
      String event = null;
      Iterator<String> lines = response.body().iterator();
      while (lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("data: ") && "token".equals(event)) {
          long now = System.nanoTime();
          synchronized (into) {
            if (previous < 0) {
              into.addedTtftMicros().recordValue(Math.max(0, (now - sent) / 1000 - shape.ttftMs() * 1000));
            } else {
              into.interTokenMicros().recordValue(Math.max(0, (now - previous) / 1000));
            }
          }
          previous = now;
          received++;
        } else if (line.startsWith("data: ") && event != null && event.startsWith("turn.")
            && !event.equals("turn.started")) {
          JsonNode data = Json.MAPPER.readTree(line.substring(6));
          if (!event.equals("turn.completed")) {
            throw new IllegalStateException("turn ended with " + event + ": " + data);
          }
        }
      }
      synchronized (into) {
        into.turnMicros().recordValue((System.nanoTime() - sent) / 1000);
      }
    }
    return received;
  }
}
