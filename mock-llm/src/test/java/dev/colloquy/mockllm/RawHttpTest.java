package dev.colloquy.mockllm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What no well-behaved client sends, and the endpoints the official client has no call for. */
class RawHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static MockLlmServer server;
  private static HttpClient http;

  @BeforeAll
  static void start() {
    server = MockLlmServer.start(MockLlmSettings.defaults().withTokens(2));
    http = HttpClient.newHttpClient();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  @Test
  void malformedJsonIs400InOpenAiShape() throws Exception {
    HttpResponse<String> response = post("/chat/completions", "{\"model\": \"mock-chat\", ");

    assertThat(response.statusCode()).isEqualTo(400);
    JsonNode error = JSON.readTree(response.body()).path("error");
    assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.path("code").asText()).isEqualTo("invalid_json");
    assertThat(error.path("message").asText()).isNotBlank();
  }

  @Test
  void missingMessagesIs400NamingTheParameter() throws Exception {
    HttpResponse<String> response = post("/chat/completions", "{\"model\": \"mock-chat\"}");

    assertThat(response.statusCode()).isEqualTo(400);
    JsonNode error = JSON.readTree(response.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo("missing_required_parameter");
    assertThat(error.path("param").asText()).isEqualTo("messages");
  }

  @Test
  void missingModelIs400() throws Exception {
    HttpResponse<String> response = post("/embeddings", "{\"input\": \"text\"}");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(response.body()).path("error").path("param").asText())
        .isEqualTo("model");
  }

  @Test
  void streamIsFramedAsServerSentEvents() throws Exception {
    String body =
        """
        {"model": "framing", "messages": [{"role": "user", "content": "hi"}], "stream": true,
         "stream_options": {"include_usage": true}, "unknown_field": 1}\
        """;
    HttpResponse<String> response = post("/chat/completions", body);

    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("text/event-stream"));
    String[] events = response.body().split("\n\n");
    assertThat(events).hasSize(5).allSatisfy(event -> assertThat(event).startsWith("data: "));
    assertThat(JSON.readTree(events[0].substring(6)).at("/choices/0/delta/role").asText())
        .isEqualTo("assistant");
    assertThat(JSON.readTree(events[2].substring(6)).at("/choices/0/finish_reason").asText())
        .isEqualTo("stop");
    assertThat(JSON.readTree(events[3].substring(6)).at("/usage/total_tokens").asInt())
        .isEqualTo(3);
    assertThat(events[4]).isEqualTo("data: [DONE]");
  }

  /** The scripted bytes arrive as they were given, invalid UTF-8 and escapes alike, one chunk each. */
  @Test
  void aScriptedAnswerIsSentByteForByte() throws Exception {
    byte[] notUtf8 = {'a', (byte) 0xC3, (byte) 0x28, 'b', (byte) 0xFF};
    byte[] escapes = "\\r\\n\\ud800data: x".getBytes(StandardCharsets.US_ASCII);
    server.scriptRaw("raw please", List.of(notUtf8, escapes));
    try {
      String body =
          """
          {"model": "raw", "messages": [{"role": "user", "content": "raw please"}], "stream": true}\
          """;
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build();
      byte[] answer = http.send(request, HttpResponse.BodyHandlers.ofByteArray()).body();

      String[] events = new String(answer, StandardCharsets.ISO_8859_1).split("\n\n");
      assertThat(events).hasSize(4);
      assertThat(events[0]).contains("\"content\":\"" + new String(notUtf8, StandardCharsets.ISO_8859_1) + "\"");
      assertThat(JSON.readTree(events[1].substring(6)).at("/choices/0/delta/content").asText())
          .isEqualTo("\r\n\ud800data: x");
      assertThat(events[3]).isEqualTo("data: [DONE]");
    } finally {
      server.forgetRaw("raw please");
    }
    HttpResponse<String> unscripted = post("/chat/completions",
        "{\"model\": \"raw\", \"messages\": [{\"role\": \"user\", \"content\": \"raw please\"}], \"stream\": true}");
    assertThat(unscripted.body()).contains("tok0");
  }

  @Test
  void listsBuiltInAndRequestedModels() throws Exception {
    post(
        "/chat/completions",
        "{\"model\": \"asked-for\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}");

    HttpResponse<String> response = get(server.baseUrl() + "/models");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(response.body()).path("data").findValuesAsText("id"))
        .contains("mock-chat", "mock-embedding", "asked-for");
  }

  @Test
  void answersHealthChecks() throws Exception {
    HttpResponse<String> response = get("http://127.0.0.1:" + server.port() + "/health");

    assertThat(response.statusCode()).isEqualTo(200);
  }

  private static HttpResponse<String> post(String path, String body)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
