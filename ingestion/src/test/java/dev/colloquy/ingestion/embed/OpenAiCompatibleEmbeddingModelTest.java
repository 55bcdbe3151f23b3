package dev.colloquy.ingestion.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract against the project's mock server over real HTTP, whose vectors hash words (so no
 * test of meaning here); then the wire format and the failures against a hand-made endpoint.
 */
class OpenAiCompatibleEmbeddingModelTest extends EmbeddingModelContract {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static MockLlmServer mock;
  private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private HttpServer server;

  @BeforeAll
  static void startMock() {
    mock = MockLlmServer.start(MockLlmSettings.defaults(), "127.0.0.1", 0);
  }

  @AfterAll
  static void stopMock() {
    mock.close();
  }

  @Override
  protected EmbeddingModel model() {
    return new OpenAiCompatibleEmbeddingModel(mock.baseUrl(), Optional.of("any"), "mock-embedding", 384, 2, Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void batchesTextsAndKeepsTheirOrderByIndex() throws IOException {
    String baseUrl = serve(200, request -> reversedAnswer(request, 3));
    var model = new OpenAiCompatibleEmbeddingModel(baseUrl + "/", Optional.of("sk-test"), "embed-small", 3, 2, Duration.ofSeconds(5));

    List<float[]> vectors = model.embed(List.of("one", "two", "three"));

    assertThat(requests).hasSize(2);
    assertThat(requests.get(0).get("input")).hasSize(2);
    assertThat(requests.get(0).get("model").asText()).isEqualTo("embed-small");
    assertThat(requests.get(0).get("encoding_format").asText()).isEqualTo("float");
    assertThat(authorizations).containsOnly("Bearer sk-test");
    assertThat(vectors.get(0)[0]).isEqualTo(1f);
    assertThat(vectors.get(1)[1]).isEqualTo(1f);
    assertThat(vectors.get(2)[0]).isEqualTo(1f);
  }

  @Test
  void aWrongDimensionOrAnErrorStatusFailsTheEmbedding() throws IOException {
    String baseUrl = serve(200, request -> reversedAnswer(request, 3));
    var wrongDimensions = new OpenAiCompatibleEmbeddingModel(baseUrl, Optional.empty(), "m", 384, 8, Duration.ofSeconds(5));
    assertThatThrownBy(() -> wrongDimensions.embed(List.of("x")))
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(Code.EMBEDDING_FAILED));
    server.stop(0);

    String failing = serve(503, request -> "{\"error\":{\"message\":\"overloaded\"}}");
    var model = new OpenAiCompatibleEmbeddingModel(failing, Optional.empty(), "m", 3, 8, Duration.ofSeconds(5));
    assertThatThrownBy(() -> model.embed(List.of("x")))
        .isInstanceOf(IngestionException.class)
        .hasMessageContaining("503");
  }

  @Test
  void aFailingEndpointFailsTheEmbeddingWithEmbeddingFailed() {
    mock.reconfigure(MockLlmSettings.defaults().failing(FailureMode.HTTP_500, "mock-embedding"));
    try {
      assertThatThrownBy(() -> model().embed(List.of("x")))
          .isInstanceOf(IngestionException.class)
          .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(Code.EMBEDDING_FAILED))
          .hasMessageContaining("500");
    } finally {
      mock.reconfigure(MockLlmSettings.defaults());
    }
  }

  /** Answers with one-hot vectors, listed in reverse order so the client must sort by index. */
  private static String reversedAnswer(JsonNode request, int dimensions) {
    StringBuilder data = new StringBuilder();
    int count = request.get("input").size();
    for (int i = count - 1; i >= 0; i--) {
      StringBuilder vector = new StringBuilder();
      for (int d = 0; d < dimensions; d++) {
        vector.append(d == 0 ? "" : ",").append(d == i % 2 ? "1.0" : "0.0");
      }
      data.append(data.isEmpty() ? "" : ",").append("{\"object\":\"embedding\",\"index\":").append(i)
          .append(",\"embedding\":[").append(vector).append("]}");
    }
    return "{\"object\":\"list\",\"data\":[" + data + "],\"model\":\"m\"}";
  }

  private String serve(int status, Function<JsonNode, String> answer) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/embeddings", exchange -> {
      JsonNode request = JSON.readTree(exchange.getRequestBody());
      requests.add(request);
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      if (authorization != null) {
        authorizations.add(authorization);
      }
      byte[] body = answer.apply(request).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }
}
