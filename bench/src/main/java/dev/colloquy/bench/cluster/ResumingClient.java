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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
   * How often a resume asks the next node while no node has answered. A node that asks for a session
   * living on a node not yet known to be dead sends its ask where nothing answers it (until its 10 s
   * ask timeout), while one asked after the survivors removed the dead node holds the request until
   * the session has started again elsewhere and answers at once. Asking again this often, and keeping
   * the latest {@link #OPEN_ATTEMPTS} asks open rather than giving each up, the client is answered
   * within this interval of the session being back, whichever node it reaches.
   */
  private static final Duration ATTEMPT_SPACING = Duration.ofMillis(250);
  private static final int OPEN_ATTEMPTS = 4;
  /** How long one resume attempt may wait for its response to begin: beyond the server's ask timeout. */
  private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(12);
  /** The pause before an attempt after a node refused at once (connection refused, 503). */
  private static final Duration REFUSED_PAUSE = Duration.ofMillis(50);
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
      Rejoined rejoined = rejoin(sessionId, node, until);
      if (rejoined == null) {
        throw new IllegalStateException("turn " + turnId + " did not end within " + deadline);
      }
      node = rejoined.node();
      resumes++;
      if (rejoined.response().statusCode() == 204) {
        return;
      }
      ended = read(rejoined.response());
    }
  }

  /** The response a resume got its stream from, and the node that gave it. */
  private record Rejoined(HttpResponse<Stream<String>> response, int node) {}

  /** One resume attempt in flight. */
  private record Attempt(CompletableFuture<HttpResponse<Stream<String>>> response, int node) {}

  /**
   * Joins the turn again with the last id seen, through the nodes after {@code after} in turn: a new
   * attempt every {@link #ATTEMPT_SPACING} (at once after a refusal), the latest {@link #OPEN_ATTEMPTS}
   * kept open; the first that answers with a stream (or 204, the turn over) wins and the others are
   * cancelled. Null when none did by {@code until}.
   */
  private Rejoined rejoin(String sessionId, int after, long until) throws InterruptedException {
    java.util.ArrayDeque<Attempt> open = new java.util.ArrayDeque<>();
    int node = after;
    long nextAttemptAt = 0;
    try {
      while (System.nanoTime() < until) {
        if (System.nanoTime() >= nextAttemptAt) {
          node = (node + 1) % nodes.size();
          open.addLast(new Attempt(join(nodes.get(node), sessionId), node));
          if (open.size() > OPEN_ATTEMPTS) {
            cancel(open.removeFirst());
          }
          nextAttemptAt = System.nanoTime() + ATTEMPT_SPACING.toNanos();
        }
        try {
          CompletableFuture.anyOf(open.stream().map(Attempt::response).toArray(CompletableFuture[]::new))
              .get(Math.max(1, nextAttemptAt - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException notYet) {
          // looked at below
        }
        for (java.util.Iterator<Attempt> attempts = open.iterator(); attempts.hasNext(); ) {
          Attempt attempt = attempts.next();
          if (!attempt.response().isDone()) {
            continue;
          }
          attempts.remove();
          HttpResponse<Stream<String>> response = attempt.response().exceptionally(unreachable -> null).join();
          if (response != null && (response.statusCode() == 200 || response.statusCode() == 204)) {
            return new Rejoined(response, attempt.node());
          }
          if (response != null) {
            response.body().close();
          }
          nextAttemptAt = Math.min(nextAttemptAt, System.nanoTime() + REFUSED_PAUSE.toNanos());
        }
      }
      return null;
    } finally {
      open.forEach(ResumingClient::cancel);
    }
  }

  /** A join with the last id seen, sent to {@code node}. */
  private CompletableFuture<HttpResponse<Stream<String>>> join(String node, String sessionId) {
    HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create(node + "/v1/sessions/" + sessionId + "/turns/" + turnId + "/events"))
        .header("Authorization", authorization).header("Accept", "text/event-stream")
        .timeout(ATTEMPT_TIMEOUT).GET();
    if (!frames.isEmpty()) {
      request.header("Last-Event-ID", Long.toString(frames.getLast().id()));
    }
    return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofLines());
  }

  /** Gives an attempt up; a response that arrives all the same is closed. */
  private static void cancel(Attempt attempt) {
    attempt.response().thenAccept(response -> response.body().close());
    attempt.response().cancel(true);
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
