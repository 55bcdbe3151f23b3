package dev.colloquy.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Reads a Server-Sent Events stream the way a browser's EventSource does: a line ends at CRLF, LF
 * or a bare CR; {@code field: value} lines build an event, a blank line dispatches it, lines
 * starting with {@code :} are comments. Events are read on a thread of their own as they arrive, so
 * a test can take them one at a time with a deadline, and {@link #close()} drops the connection
 * mid-stream like a client that goes away.
 */
final class SseClient implements AutoCloseable {

  private sealed interface Item {}

  private record Dispatched(SseEvent event) implements Item {}

  private record Ended(Throwable error) implements Item {}

  private final HttpResponse<InputStream> response;
  private final BlockingQueue<Item> items = new LinkedBlockingQueue<>();
  private final List<String> comments = new CopyOnWriteArrayList<>();
  private final List<String> unknownLines = new CopyOnWriteArrayList<>();
  private volatile boolean closed;
  private boolean ended;

  private SseClient(HttpResponse<InputStream> response) {
    this.response = response;
    Thread.ofVirtual().name("sse-reader").start(this::read);
  }

  /** Sends the request and expects a 200 event stream; anything else fails the test with the body. */
  static SseClient open(HttpClient http, HttpRequest request) throws Exception {
    HttpResponse<InputStream> response =
        http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream()).get(30, TimeUnit.SECONDS);
    String contentType = response.headers().firstValue("Content-Type").orElse("");
    if (response.statusCode() != 200 || !contentType.startsWith("text/event-stream")) {
      String body;
      try (InputStream in = response.body()) {
        body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      throw new AssertionError("expected a 200 event stream from " + request.method() + " " + request.uri()
          + " but got " + response.statusCode() + " " + contentType + ": " + body);
    }
    return new SseClient(response);
  }

  /** Reads the body of a response already checked to be an event stream. */
  static SseClient of(HttpResponse<InputStream> response) {
    return new SseClient(response);
  }

  HttpResponse<InputStream> response() {
    return response;
  }

  /** The next event; fails when none arrives in time or the stream ends first. */
  SseEvent next(Duration timeout) throws InterruptedException {
    if (ended) {
      throw new AssertionError("the stream has ended");
    }
    Item item = items.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    return switch (item) {
      case null -> throw new AssertionError("no event within " + timeout);
      case Dispatched dispatched -> dispatched.event();
      case Ended end -> {
        ended = true;
        throw new AssertionError("the stream ended before the next event", end.error());
      }
    };
  }

  /** Events up to and including the first that matches. */
  List<SseEvent> readUntil(Predicate<SseEvent> last, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<SseEvent> events = new ArrayList<>();
    while (true) {
      SseEvent event = next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      events.add(event);
      if (last.test(event)) {
        return events;
      }
    }
  }

  /** Every event until the server ends the stream; fails when it does not end in time. */
  List<SseEvent> readToEnd(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<SseEvent> events = new ArrayList<>();
    while (!ended) {
      Item item = items.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      switch (item) {
        case null -> throw new AssertionError("the stream did not end within " + timeout + "; got " + events);
        case Dispatched dispatched -> events.add(dispatched.event());
        case Ended end -> {
          ended = true;
          if (end.error() != null) {
            throw new AssertionError("the stream broke instead of ending; got " + events, end.error());
          }
        }
      }
    }
    return events;
  }

  List<String> comments() {
    return List.copyOf(comments);
  }

  /** Lines that were neither a known field, a comment nor blank: an injected field would show here. */
  List<String> unknownLines() {
    return List.copyOf(unknownLines);
  }

  /** Drops the connection, as a client that goes away does. */
  @Override
  public void close() throws IOException {
    closed = true;
    response.body().close();
  }

  private void read() {
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String event = null;
      String id = null;
      StringBuilder data = null;
      // readLine ends a line at \n, \r or \r\n, as the SSE grammar does.
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.isEmpty()) {
          if (event != null || id != null || data != null) {
            items.add(new Dispatched(new SseEvent(event == null ? "message" : event, id, data == null ? "" : data.toString())));
          }
          event = null;
          id = null;
          data = null;
          continue;
        }
        if (line.startsWith(":")) {
          comments.add(line.substring(1).strip());
          continue;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
          value = value.substring(1);
        }
        switch (field) {
          case "event" -> event = value;
          case "id" -> id = value;
          case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
          case "retry" -> { }
          default -> unknownLines.add(line);
        }
      }
      items.add(new Ended(null));
    } catch (IOException e) {
      items.add(new Ended(closed ? null : e));
    }
  }
}
