package dev.colloquy.ingestion.search.rerank;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A fake of Cohere's rerank endpoint ({@code POST /v2/rerank}) on 127.0.0.1 and an ephemeral port. It
 * scores a document by the share of the query's words it contains and answers Cohere's response
 * shape, best first, cut to {@code top_n}. It can instead answer an HTTP status with a body, or hold
 * every request until {@link #close()} (to time a client out without sleeping).
 */
final class FakeCohereServer implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private enum Mode { SCORE, STATUS, HANG }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final CountDownLatch released = new CountDownLatch(1);
  private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Mode mode = Mode.SCORE;
  private volatile int status;
  private volatile String body = "";

  private FakeCohereServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/v2/rerank", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  static FakeCohereServer start() {
    try {
      return new FakeCohereServer();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The base URL a client is configured with, e.g. {@code http://127.0.0.1:PORT/v2}. */
  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v2";
  }

  /** Every request from now on gets this status and body. */
  void answer(int status, String body) {
    this.status = status;
    this.body = body;
    this.mode = Mode.STATUS;
  }

  /** Every request from now on is held unanswered until the server closes. */
  void hang() {
    this.mode = Mode.HANG;
  }

  List<JsonNode> requests() {
    return requests;
  }

  List<String> authorizations() {
    return authorizations;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      JsonNode request = JSON.readTree(exchange.getRequestBody().readAllBytes());
      requests.add(request);
      authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
      switch (mode) {
        case SCORE -> respond(exchange, 200, scored(request).toString());
        case STATUS -> respond(exchange, status, body);
        case HANG -> awaitRelease();
      }
    }
  }

  private static ObjectNode scored(JsonNode request) {
    List<String> queryWords = words(request.path("query").asText());
    List<ObjectNode> results = new ArrayList<>();
    JsonNode documents = request.path("documents");
    for (int i = 0; i < documents.size(); i++) {
      List<String> documentWords = words(documents.get(i).asText());
      double score = queryWords.isEmpty() ? 0 : queryWords.stream().filter(documentWords::contains).count() / (double) queryWords.size();
      results.add(JSON.createObjectNode().put("index", i).put("relevance_score", score));
    }
    results.sort(Comparator.comparingDouble((ObjectNode result) -> result.get("relevance_score").asDouble()).reversed());
    ObjectNode response = JSON.createObjectNode().put("id", "fake-rerank");
    ArrayNode array = response.putArray("results");
    results.stream().limit(request.path("top_n").asInt(results.size())).forEach(array::add);
    response.putObject("meta").putObject("billed_units").put("search_units", 1);
    return response;
  }

  private static List<String> words(String text) {
    return List.of(text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")).stream().filter(word -> !word.isEmpty()).toList();
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private void awaitRelease() {
    try {
      released.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    released.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
