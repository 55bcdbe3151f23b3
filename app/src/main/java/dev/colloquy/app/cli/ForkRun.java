package dev.colloquy.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.http.Json;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * {@code colloquy replay SESSION --fork-at-turn N}: forks the session on a running server
 * ({@code POST /v1/sessions/{id}/fork}) and runs turn N again in the fork, with the original message
 * or another one, on the default model or another one, so the two can be compared with {@code --diff}.
 */
final class ForkRun {

  private static final Duration TURN_TIMEOUT = Duration.ofMinutes(5);

  private final URI server;
  private final String apiKey;

  ForkRun(URI server, String apiKey) {
    this.server = server;
    this.apiKey = apiKey;
  }

  /** The fork's session id, once its turn (if there is one to run) has ended. */
  String run(String sessionId, int atTurn, String model, String message, PrintWriter out) throws Exception {
    try (HttpClient client = HttpClient.newHttpClient()) {
      JsonNode fork = post(client, "/v1/sessions/" + sessionId + "/fork",
          Json.MAPPER.createObjectNode().put("at_turn", atTurn), Duration.ofSeconds(30), 201);
      String forkId = fork.path("session_id").asText();
      out.printf("Forked %s at turn %d: session %s, %d turns inherited%n", sessionId, atTurn, forkId,
          fork.path("inherited_turns").asInt());
      String ask = message != null ? message : fork.path("at_turn_message").textValue();
      if (ask == null) {
        out.println("No turn to run again (the fork is after the last turn); send one with --message");
        return forkId;
      }
      ObjectNode turn = Json.MAPPER.createObjectNode().put("message", ask);
      if (model != null) {
        turn.putArray("models").add(model);
      }
      JsonNode ended = post(client, "/v1/sessions/" + forkId + "/turns", turn, TURN_TIMEOUT, 200);
      out.printf("Turn %d of %s: %s%n", atTurn, forkId, ended.path("text").asText(""));
      out.printf("Compare: colloquy replay --diff %s %s%n", sessionId, forkId);
      return forkId;
    }
  }

  private JsonNode post(HttpClient client, String path, JsonNode body, Duration timeout, int expected)
      throws Exception {
    HttpRequest.Builder request = ServerRequests.withApiKey(HttpRequest.newBuilder(
            URI.create(server.toString().replaceAll("/+$", "") + path))
        .timeout(timeout).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))), apiKey);
    HttpResponse<String> response = ServerRequests.send(client, request.build());
    if (response.statusCode() != expected) {
      throw new IllegalStateException("The server answered " + response.statusCode() + " to POST " + path + ": "
          + errorOf(response.body()));
    }
    return Json.MAPPER.readTree(response.body());
  }

  /** The error's code and message when the body is the API's error shape, else the body as it came. */
  private static String errorOf(String body) {
    try {
      JsonNode error = Json.MAPPER.readTree(body).path("error");
      if (error.isObject()) {
        return error.path("code").asText() + " " + error.path("message").asText();
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException notJson) {
      // the body as it came is the best description there is
    }
    return body;
  }
}
