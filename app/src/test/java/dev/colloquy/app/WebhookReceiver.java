package dev.colloquy.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * A tenant's webhook endpoint on loopback that records every attempt it receives and answers 500 to
 * the next attempts {@link #failNext} names (by a text their body contains, such as a session id),
 * 200 to the others: the webhooks of several tests may arrive at once.
 */
final class WebhookReceiver implements AutoCloseable {

  /** One POST as it arrived, and what it was answered. */
  record Attempt(String id, String timestamp, String signature, String body, int answered) {
    boolean accepted() {
      return answered == 200;
    }
  }

  private final HttpServer server;
  private final List<Attempt> attempts = new ArrayList<>();
  private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

  WebhookReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/hook", this::receive);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  /** The next {@code count} attempts whose body contains {@code marker} are answered 500. */
  void failNext(String marker, int count) {
    failures.put(marker, new AtomicInteger(count));
  }

  synchronized List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  /** The attempts that match, once at least {@code count} of them have arrived within {@code timeout}. */
  List<Attempt> await(Predicate<Attempt> which, int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<Attempt> matching = attempts().stream().filter(which).toList();
      if (matching.size() >= count) {
        return matching;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("expected " + count + " matching webhook attempts within " + timeout + ", got "
            + attempts());
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  private void receive(HttpExchange exchange) throws IOException {
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    int status = failures.entrySet().stream().filter(failing -> body.contains(failing.getKey()))
        .anyMatch(failing -> failing.getValue().getAndUpdate(left -> Math.max(0, left - 1)) > 0) ? 500 : 200;
    synchronized (this) {
      attempts.add(new Attempt(exchange.getRequestHeaders().getFirst("webhook-id"),
          exchange.getRequestHeaders().getFirst("webhook-timestamp"),
          exchange.getRequestHeaders().getFirst("webhook-signature"), body, status));
    }
    exchange.sendResponseHeaders(status, -1);
    exchange.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
