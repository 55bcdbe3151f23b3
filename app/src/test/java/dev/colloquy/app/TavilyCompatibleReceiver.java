package dev.colloquy.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * A web search endpoint on loopback that speaks Tavily's search API: {@code POST /search} with
 * {@code {"api_key", "query", "max_results"}} answers {@code {"query", "results": [{"title", "url",
 * "content", "score"}]}}, 401 for another key than {@link #KEY}, 500 for a query containing
 * "unavailable". Every request body is recorded.
 */
final class TavilyCompatibleReceiver implements AutoCloseable {

  static final String KEY = "tvly-test-0123456789";

  private final HttpServer server;
  private final List<JsonNode> requests = new ArrayList<>();

  private TavilyCompatibleReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/search", this::search);
    server.start();
  }

  static TavilyCompatibleReceiver start() {
    try {
      return new TavilyCompatibleReceiver();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/search";
  }

  synchronized List<JsonNode> requests() {
    return List.copyOf(requests);
  }

  private void search(HttpExchange exchange) throws IOException {
    JsonNode request = Api.JSON.readTree(exchange.getRequestBody().readAllBytes());
    synchronized (this) {
      requests.add(request);
    }
    String query = request.path("query").asText();
    if (!KEY.equals(request.path("api_key").asText(null))) {
      answer(exchange, 401, "{\"detail\":{\"error\":\"Unauthorized: missing or invalid API key.\"}}");
    } else if (query.contains("unavailable")) {
      answer(exchange, 500, "{\"detail\":{\"error\":\"Internal Server Error\"}}");
    } else {
      var body = Api.JSON.createObjectNode().put("query", query).put("response_time", 0.42);
      var results = body.putArray("results");
      for (int i = 1; i <= request.path("max_results").asInt(5); i++) {
        results.addObject().put("title", "Victorian mourning customs, part " + i)
            .put("url", "https://history.example.org/mourning/" + i)
            .put("content", "Widows wore black crape for a year and a day (" + i + ").").put("score", 0.9 - i / 100.0);
      }
      answer(exchange, 200, body.toString());
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
    server.stop(0);
  }
}
