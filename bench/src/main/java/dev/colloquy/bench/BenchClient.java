package dev.colloquy.bench;

import dev.colloquy.app.Colloquy;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * A benchmark's client of the HTTP API with the development tenant's key: opens sessions and runs
 * turns as JSON (not streamed).
 */
final class BenchClient implements AutoCloseable {

  private final String baseUrl;
  private final String authorization;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  BenchClient(Colloquy colloquy) {
    this.baseUrl = colloquy.baseUrl();
    this.authorization = "Bearer " + DevKey.of(colloquy);
  }

  String openSession() throws Exception {
    HttpResponse<String> response = post("/v1/sessions", "{}");
    if (response.statusCode() != 201) {
      throw new IllegalStateException("open session: HTTP " + response.statusCode() + " " + response.body());
    }
    return Json.MAPPER.readTree(response.body()).path("session_id").asText();
  }

  /** Runs one turn to its end; fails unless it completed. */
  void turn(String sessionId, String message) throws Exception {
    HttpResponse<String> response = post("/v1/sessions/" + sessionId + "/turns",
        Json.MAPPER.createObjectNode().put("message", message).toString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("turn: HTTP " + response.statusCode() + " " + response.body());
    }
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(baseUrl + path))
        .header("Content-Type", "application/json")
        .header("Authorization", authorization)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Closes the client's connections, so that neither side holds buffers for them afterwards. */
  @Override
  public void close() {
    http.close();
  }
}
