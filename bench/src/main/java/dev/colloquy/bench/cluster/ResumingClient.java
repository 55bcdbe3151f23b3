package dev.colloquy.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.http.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A client of one streamed turn that behaves as a resilient SSE client does: when its stream breaks
 * before the terminal event, it reconnects through the next node with {@code Last-Event-ID} until it
 * gets the rest. It records every frame with the time it arrived, and what went wrong on the way.
 */
public final class ResumingClient {

  /** One SSE frame as the client received it. */
  public record Frame(long id, String event, JsonNode data, long atNanos) {}

  /**
   * How long a resume waits for the response to begin: a node asking a session that lives on a node
   * not yet known to be dead waits for its ask to time out, so the client tries the next node sooner.
   */
  private static final Duration HEADERS_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration RETRY_PAUSE = Duration.ofMillis(200);

  private final HttpClient http;
  private final List<String> nodes;
  private final String authorization;
  private final List<Frame> frames = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final List<Long> breaksAtNanos = new ArrayList<>();
  private int duplicates;
  private int resumes;
  private int retriedStarts;
  private boolean resuming;
  private long firstResumedNanos;
  private String turnId;

  public ResumingClient(HttpClient http, List<String> nodes, String apiKey) {
    this.http = http;
    this.nodes = List.copyOf(nodes);
    this.authorization = "Bearer " + apiKey;
  }

  /** How long an open that the cluster refuses for now (503) is tried again, through the next node. */
  private static final Duration OPEN_DEADLINE = Duration.ofSeconds(30);

  /**
   * Opens a session through node {@code via}; returns its id. A 503 (the cluster moving its shards
   * while a node rejoins, say) or an unreachable node is tried again through the next node, as a
   * client honouring Retry-After would, for at most {@link #OPEN_DEADLINE}.
   */
  public String openSession(int via) throws Exception {
    long until = System.nanoTime() + OPEN_DEADLINE.toNanos();
    String last = "no answer";
    for (int node = via; System.nanoTime() < until; node = (node + 1) % nodes.size()) {
      try {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(nodes.get(node) + "/v1/sessions"))
            .header("Authorization", authorization).header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(15))
            .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 201) {
          return Json.MAPPER.readTree(response.body()).path("session_id").asText();
        }
        if (response.statusCode() != 503) {
          throw new IllegalStateException("open session: HTTP " + response.statusCode() + " " + response.body());
        }
        last = "HTTP 503 " + response.body();
      } catch (IOException unreachable) {
        last = unreachable.toString();
      }
      Thread.sleep(RETRY_PAUSE.toMillis());
    }
    throw new IllegalStateException("open session: not within " + OPEN_DEADLINE + " (last: " + last + ")");
  }

  /**
   * Runs a turn of {@code sessionId} through node {@code via}, reconnecting through the other nodes
   * whenever the stream breaks, until the terminal event or {@code deadline}.
   */
  public void run(String sessionId, String message, int via, Duration deadline) throws Exception {
    run(sessionId, message, null, via, deadline);
  }

  /**
   * As {@link #run(String, String, int, Duration)}; with an {@code idempotencyKey}, a start the node
   * refuses with 503 (shutting down, session unavailable) or cannot take (connection refused) is
   * sent again through the next node, as the same turn.
   */
  public void run(String sessionId, String message, String idempotencyKey, int via, Duration deadline) throws Exception {
    long until = System.nanoTime() + deadline.toNanos();
    var body = Json.MAPPER.createObjectNode().put("message", message);
    if (idempotencyKey != null) {
      body.put("idempotency_key", idempotencyKey);
    }
    int node = via;
    HttpResponse<Stream<String>> first = null;
    while (first == null) {
      try {
        first = http.send(HttpRequest.newBuilder(URI.create(nodes.get(node) + "/v1/sessions/" + sessionId + "/turns"))
            .header("Authorization", authorization).header("Content-Type", "application/json")
            .header("Accept", "text/event-stream").timeout(Duration.ofSeconds(15))
            .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofLines());
      } catch (IOException unreachable) {
        if (idempotencyKey == null) {
          throw unreachable;
        }
      }
      if (first != null && first.statusCode() != 200) {
        first.body().close();
        if (idempotencyKey == null || first.statusCode() != 503) {
          throw new IllegalStateException("start turn: HTTP " + first.statusCode());
        }
        first = null;
      }
      if (first == null) {
        retriedStarts++;
        if (System.nanoTime() > until) {
          throw new IllegalStateException("the turn could not be started within " + deadline);
        }
        node = (node + 1) % nodes.size();
        Thread.sleep(RETRY_PAUSE.toMillis());
      }
    }
    boolean ended = read(first);
    while (!ended) {
      breaksAtNanos.add(System.nanoTime());
      resuming = true;
      if (turnId == null) {
        if (idempotencyKey == null) {
          throw new IllegalStateException("the stream broke before its first frame");
        }
        // Nothing names the turn yet: the same start again joins it from its first frame.
        run(sessionId, message, idempotencyKey, (node + 1) % nodes.size(), Duration.ofNanos(until - System.nanoTime()));
        return;
      }
      ended = false;
      while (!ended) {
        if (System.nanoTime() > until) {
          throw new IllegalStateException("turn " + turnId + " did not end within " + deadline);
        }
        node = (node + 1) % nodes.size();
        HttpResponse<Stream<String>> response = join(nodes.get(node), sessionId);
        if (response == null) {
          Thread.sleep(RETRY_PAUSE.toMillis());
          continue;
        }
        resumes++;
        if (response.statusCode() == 204) {
          return;
        }
        ended = read(response);
        if (!ended) {
          break;
        }
      }
    }
  }

  /** A join with the last id seen, or null when the node did not answer it with a stream. */
  private HttpResponse<Stream<String>> join(String node, String sessionId) throws InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create(node + "/v1/sessions/" + sessionId + "/turns/" + turnId + "/events"))
        .header("Authorization", authorization).header("Accept", "text/event-stream")
        .timeout(HEADERS_TIMEOUT).GET();
    if (!frames.isEmpty()) {
      request.header("Last-Event-ID", Long.toString(frames.getLast().id()));
    }
    try {
      HttpResponse<Stream<String>> response = http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
      if (response.statusCode() == 200 || response.statusCode() == 204) {
        return response;
      }
      response.body().close();
      return null;
    } catch (IOException unreachable) {
      return null;
    }
  }

  /** Reads frames until the terminal event (true) or until the stream breaks (false). */
  private boolean read(HttpResponse<Stream<String>> response) {
    String event = null;
    long id = -1;
    try (Stream<String> lines = response.body()) {
      Iterator<String> iterator = lines.iterator();
      while (iterator.hasNext()) {
        String line = iterator.next();
        if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("id: ")) {
          id = Long.parseLong(line.substring(4).strip());
        } else if (line.startsWith("data: ") && event != null) {
          JsonNode data = Json.MAPPER.readTree(line.substring(6));
          if (!frames.isEmpty() && id <= frames.getLast().id()) {
            duplicates++;
          } else {
            frames.add(new Frame(id, event, data, System.nanoTime()));
            if (resuming) {
              resuming = false;
              if (firstResumedNanos == 0) {
                firstResumedNanos = frames.getLast().atNanos();
              }
            }
          }
          turnId = data.path("turn_id").asText();
          if (terminal(event)) {
            return true;
          }
          event = null;
        }
      }
      return false;
    } catch (UncheckedIOException | IOException broken) {
      return false;
    }
  }

  /**
   * Every frame of an ended turn, replayed from the journal through {@code nodes}, starting with
   * {@code first}. A replay is read as any client reads a stream: when it is refused or breaks (the
   * session moving to a node that has just rejoined, say), it is asked again through the next node
   * with {@code Last-Event-ID}, for at most {@code deadline}.
   */
  public static List<Frame> replay(HttpClient http, List<String> nodes, int first, String apiKey, String sessionId,
      String turnId, Duration deadline) throws Exception {
    ResumingClient reader = new ResumingClient(http, nodes, apiKey);
    long until = System.nanoTime() + deadline.toNanos();
    String last = "no answer";
    for (int node = first; System.nanoTime() < until; node = (node + 1) % nodes.size()) {
      HttpRequest.Builder request = HttpRequest.newBuilder(
              URI.create(nodes.get(node) + "/v1/sessions/" + sessionId + "/turns/" + turnId + "/events"))
          .header("Authorization", reader.authorization).header("Accept", "text/event-stream")
          .timeout(Duration.ofSeconds(5)).GET();
      if (!reader.frames.isEmpty()) {
        request.header("Last-Event-ID", Long.toString(reader.frames.getLast().id()));
      }
      try {
        HttpResponse<Stream<String>> response = http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() == 200 && reader.read(response)) {
          return List.copyOf(reader.frames);
        }
        last = response.statusCode() == 200 ? "the stream broke" : "HTTP " + response.statusCode();
        response.body().close();
      } catch (IOException unreachable) {
        last = unreachable.toString();
      }
      Thread.sleep(RETRY_PAUSE.toMillis());
    }
    throw new IllegalStateException("the replay of turn " + turnId + " did not end with a terminal event within "
        + deadline + " (last: " + last + ")");
  }

  /** The tokens the client saw that the journal does not hold: seen frames of the first attempt above its last journaled one. */
  public int framesLostAgainst(List<Frame> replayed) {
    long journaledThrough = 0;
    for (Frame frame : replayed) {
      if (frame.event().equals("turn.restarted") || terminal(frame.event())) {
        break;
      }
      journaledThrough = frame.id();
    }
    long restartId = frames.stream().filter(frame -> frame.event().equals("turn.restarted") || terminal(frame.event()))
        .mapToLong(Frame::id).findFirst().orElse(Long.MAX_VALUE);
    long bound = journaledThrough;
    return (int) frames.stream().filter(frame -> frame.id() > bound && frame.id() < restartId).count();
  }

  static boolean terminal(String event) {
    return event.equals("turn.completed") || event.equals("turn.failed") || event.equals("turn.cancelled");
  }

  public List<Frame> frames() {
    return frames;
  }

  public String turnId() {
    return turnId;
  }

  public int duplicates() {
    return duplicates;
  }

  public int retriedStarts() {
    return retriedStarts;
  }

  public int resumes() {
    return resumes;
  }

  public boolean broke() {
    return !breaksAtNanos.isEmpty();
  }

  /** When the first frame of a resumed stream arrived (System.nanoTime), or 0 when the stream never broke. */
  public long firstResumedNanos() {
    return firstResumedNanos;
  }

  /** The token text of the frames, restarted on {@code turn.restarted}: the answer the client shows. */
  public String answer() {
    StringBuilder text = new StringBuilder();
    for (Frame frame : frames) {
      if (frame.event().equals("turn.restarted")) {
        text.setLength(0);
      } else if (frame.event().equals("token")) {
        text.append(frame.data().path("text").asText());
      }
    }
    return text.toString();
  }

  /** Every token text the client was shown, before and after any restart. */
  public String everythingSeen() {
    StringBuilder text = new StringBuilder();
    frames.stream().filter(frame -> frame.event().equals("token"))
        .forEach(frame -> text.append(frame.data().path("text").asText()));
    return text.toString();
  }

  public Frame terminalFrame() {
    return frames.isEmpty() || !terminal(frames.getLast().event()) ? null : frames.getLast();
  }
}
