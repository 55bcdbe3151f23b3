package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/** The canonical API: {@code POST /v1/sessions}, then {@code POST …/turns} with {@code Accept: text/event-stream}. */
final class CanonicalBenchDialect implements BenchDialect {

  static final String NAME = "canonical";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String open(Target target) throws Exception {
    return openSession(target);
  }

  /** A canonical session, which the OpenAI dialect's turns also name. */
  static String openSession(Target target) throws Exception {
    HttpResponse<String> response = target.client().send(HttpRequest.newBuilder(URI.create(target.base() + "/v1/sessions"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
        .header("Authorization", target.authorization()).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException("open session: " + response.statusCode() + " " + response.body());
    }
    return Json.MAPPER.readTree(response.body()).path("session_id").asText();
  }

  @Override
  public void turn(Target target, String sessionId, String message, LongConsumer tokens) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(target.base() + "/v1/sessions/" + sessionId + "/turns"))
        .header("Accept", "text/event-stream").header("Content-Type", "application/json")
        .header("Authorization", target.authorization())
        .POST(HttpRequest.BodyPublishers.ofString(Json.MAPPER.createObjectNode().put("message", message).toString()))
        .build();
    HttpResponse<Stream<String>> response = target.client().send(request, HttpResponse.BodyHandlers.ofLines());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("turn: HTTP " + response.statusCode());
    }
    String event = null;
    Iterator<String> lines = response.body().iterator();
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("event: ")) {
        event = line.substring(7);
      } else if (line.startsWith("data: ") && "token".equals(event)) {
        tokens.accept(System.nanoTime());
      } else if (line.startsWith("data: ") && event != null && event.startsWith("turn.") && !event.equals("turn.started")
          && !event.equals("turn.completed")) {
        JsonNode data = Json.MAPPER.readTree(line.substring(6));
        throw new IllegalStateException("turn ended with " + event + ": " + data);
      }
    }
  }
}
