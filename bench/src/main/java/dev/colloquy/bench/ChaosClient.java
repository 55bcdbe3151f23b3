package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.http.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * One client of the chaos run, as a careful application would be: it opens a session and streams
 * one turn after another, each with an idempotency key of its own; when the node goes away in the
 * middle (a refused connection, a stream cut before its terminal event, a 5xx) it sends the same
 * turn again with the same key until the turn's terminal event reaches it. It records every turn the
 * server acknowledged (its {@code turn.started} frame arrived) and how each of its turns ended.
 */
final class ChaosClient implements Runnable {

  private static final Duration RETRY_PAUSE = Duration.ofMillis(250);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  /**
   * A turn this client sent: its key, the id the server gave it, whether the server acknowledged it
   * ({@code turn.started} arrived), how it ended as the client saw it, and how many times it was sent.
   */
  record Turn(String sessionId, String idempotencyKey, String turnId, boolean acknowledged, String ending, String code,
      int attempts) {}

  private final String name;
  private final String baseUrl;
  private final String authorization;
  private final AtomicBoolean stopping;
  private final AtomicLong acknowledgements;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();
  private final List<Turn> turns = new CopyOnWriteArrayList<>();
  private final List<String> sessions = new CopyOnWriteArrayList<>();
  private volatile Throwable crashed;

  /** {@code acknowledgements} counts, across clients, every turn.started frame that arrives. */
  ChaosClient(String name, String baseUrl, String apiKey, AtomicBoolean stopping, AtomicLong acknowledgements) {
    this.name = name;
    this.baseUrl = baseUrl;
    this.authorization = "Bearer " + apiKey;
    this.stopping = stopping;
    this.acknowledgements = acknowledgements;
  }

  List<Turn> turns() {
    return turns;
  }

  List<String> sessions() {
    return sessions;
  }

  /** Whatever ended the client other than the stop: a bug of the bench or a refusal the API should never give. */
  Throwable crashed() {
    return crashed;
  }

  @Override
  public void run() {
    try {
      String sessionId = openSession();
      for (int turn = 1; !stopping.get(); turn++) {
        turns.add(runTurn(sessionId, name + " turn " + turn, UUID.randomUUID().toString()));
      }
    } catch (RuntimeException | Error e) {
      crashed = e;
    } finally {
      http.close();
    }
  }

  private String openSession() {
    while (true) {
      try {
        HttpResponse<String> created = post("/v1/sessions", "{}");
        if (created.statusCode() == 201) {
          String sessionId = Json.MAPPER.readTree(created.body()).path("session_id").asText();
          sessions.add(sessionId);
          return sessionId;
        }
        requireRetryable(created.statusCode(), created.body());
      } catch (IOException e) {
        // the node is down: try again
      }
      pause();
    }
  }

  /** Sends the turn, again and again with the same key, until its terminal event arrives. */
  private Turn runTurn(String sessionId, String message, String key) {
    String body = Json.MAPPER.createObjectNode().put("message", message).put("idempotency_key", key).toString();
    String turnId = null;
    boolean acknowledged = false;
    for (int attempt = 1; ; attempt++) {
      try {
        HttpResponse<Stream<String>> response = http.send(request("/v1/sessions/" + sessionId + "/turns")
            .header("Accept", "text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() == 200) {
          Ending ending = read(response.body(), acknowledgements);
          turnId = ending.turnId() != null ? ending.turnId() : turnId;
          acknowledged |= ending.acknowledged();
          if (ending.event() != null) {
            return new Turn(sessionId, key, turnId, acknowledged, ending.event(), ending.code(), attempt);
          }
        } else {
          String error = String.join("\n", response.body().toList());
          requireRetryable(response.statusCode(), error);
        }
      } catch (IOException | UncheckedIOException e) {
        // the node went away, before or during the stream: the same key again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      pause();
    }
  }

  private record Ending(String turnId, boolean acknowledged, String event, String code) {}

  /**
   * Reads frames until the terminal one or the end of the stream: the node went away, and then what
   * arrived before (a turn.started) still counts.
   */
  private static Ending read(Stream<String> lines, AtomicLong acknowledgements) {
    String event = null;
    String turnId = null;
    boolean acknowledged = false;
    try (lines) {
      Iterator<String> iterator = lines.iterator();
      while (iterator.hasNext()) {
        String line = iterator.next();
        if (line.startsWith("event:")) {
          event = line.substring(6).strip();
        } else if (line.startsWith("data:") && event != null) {
          JsonNode data = Json.MAPPER.readTree(line.substring(5));
          turnId = data.path("turn_id").asText(turnId);
          if (event.equals("turn.started")) {
            acknowledged = true;
            acknowledgements.incrementAndGet();
          }
          if (event.equals("turn.completed") || event.equals("turn.failed") || event.equals("turn.cancelled")) {
            return new Ending(turnId, acknowledged, event, data.path("code").asText(null));
          }
        } else if (line.isEmpty()) {
          event = null;
        }
      }
    } catch (IOException | UncheckedIOException cutOff) {
      // the stream broke off: the turn is sent again, and what it had shown is kept
    }
    return new Ending(turnId, acknowledged, null, null);
  }

  /** A node that is down, starting or busy answers 5xx or 429; any other refusal is one the run must report. */
  private static void requireRetryable(int status, String body) {
    if (status < 500 && status != 429) {
      throw new IllegalStateException("the API refused a request it should take: HTTP " + status + " " + body);
    }
  }

  private HttpResponse<String> post(String path, String body) throws IOException {
    try {
      return http.send(request(path).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(baseUrl + path))
        .timeout(REQUEST_TIMEOUT)
        .header("Content-Type", "application/json")
        .header("Authorization", authorization);
  }

  /** Waits before the next try. A client interrupted (the run failed and stops its clients at once) stops here. */
  private static void pause() {
    LockSupport.parkNanos(RETRY_PAUSE.toNanos());
    if (Thread.currentThread().isInterrupted()) {
      throw new IllegalStateException("stopped: the run failed");
    }
  }
}
