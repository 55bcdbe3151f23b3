package dev.colloquy.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A tenant's data webhook on a loopback address, as {@code structured_data_lookup} calls it. It
 * records every request and answers by path: {@code /orders} the order's JSON, {@code /broken} HTTP
 * 500, {@code /slow} only once {@link #release} is called (or after 30 s), {@code /big} more JSON than
 * the server reads.
 */
final class DataWebhookReceiver implements AutoCloseable {

  /** One request as it arrived. */
  record Request(String path, String id, String timestamp, String signature, String body) {}

  static final String ORDER = "{\"order\":\"A-1234\",\"status\":\"shipped\",\"carrier\":\"DHL\"}";

  private final HttpServer server;
  private final String host;
  private final List<Request> requests = new ArrayList<>();
  private final CountDownLatch slow = new CountDownLatch(1);

  DataWebhookReceiver(String host) throws IOException {
    this.host = host;
    server = HttpServer.create(new InetSocketAddress(host, 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/", this::receive);
    server.start();
  }

  String url(String path) {
    return "http://" + host + ":" + server.getAddress().getPort() + path;
  }

  synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  /** Lets the requests held by {@code /slow} be answered. */
  void release() {
    slow.countDown();
  }

  private void receive(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    synchronized (this) {
      requests.add(new Request(path, exchange.getRequestHeaders().getFirst("webhook-id"),
          exchange.getRequestHeaders().getFirst("webhook-timestamp"),
          exchange.getRequestHeaders().getFirst("webhook-signature"), body));
    }
    switch (path) {
      case "/orders" -> answer(exchange, 200, ORDER);
      case "/broken" -> answer(exchange, 500, "{\"detail\":\"database down\"}");
      case "/slow" -> {
        try {
          slow.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        answer(exchange, 200, ORDER);
      }
      case "/big" -> answer(exchange, 200, "{\"rows\":\"" + "x".repeat(8 * 1024) + "\"}");
      default -> answer(exchange, 404, "{}");
    }
  }

  private static void answer(HttpExchange exchange, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    release();
    server.stop(0);
  }
}
