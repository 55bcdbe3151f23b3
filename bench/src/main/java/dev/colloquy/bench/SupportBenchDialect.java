package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * The Support agent dialect (seed 004) as its widget drives it, with the tenant's key in
 * {@code X-API-Key}: {@code POST /v1/session/start}, then per turn {@code POST /v1/chat/message} with
 * {@code "stream": true}, whose {@code {"delta", "done": false}} events end with {@code "done": true}.
 */
final class SupportBenchDialect implements BenchDialect {

  static final String NAME = "support";
  private static final String BEARER = "Bearer ";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String open(Target target) throws Exception {
    HttpResponse<String> response = target.client().send(HttpRequest.newBuilder(URI.create(target.base() + "/v1/session/start"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
        .header("X-API-Key", apiKey(target)).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("start session: " + response.statusCode() + " " + response.body());
    }
    return Json.MAPPER.readTree(response.body()).path("session_id").asText();
  }

  @Override
  public void turn(Target target, String sessionId, String message, LongConsumer tokens) throws Exception {
    String body = Json.MAPPER.createObjectNode().put("session_id", sessionId).put("message", message)
        .put("stream", true).toString();
    HttpRequest request = HttpRequest.newBuilder(URI.create(target.base() + "/v1/chat/message"))
        .header("Accept", "text/event-stream").header("Content-Type", "application/json")
        .header("X-API-Key", apiKey(target))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    HttpResponse<Stream<String>> response = target.client().send(request, HttpResponse.BodyHandlers.ofLines());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("message stream: HTTP " + response.statusCode());
    }
    boolean done = false;
    Iterator<String> lines = response.body().iterator();
    while (lines.hasNext()) {
      String line = lines.next();
      if (!line.startsWith("data: ")) {
        continue;
      }
      JsonNode event = Json.MAPPER.readTree(line.substring(6));
      if (event.has("error")) {
        throw new IllegalStateException("turn failed: " + event);
      }
      if (event.path("done").asBoolean()) {
        done = true;
      } else if (event.has("delta")) {
        tokens.accept(System.nanoTime());
      }
    }
    if (!done) {
      throw new IllegalStateException("the message stream ended without done");
    }
  }

  /** The key the target's {@code Authorization: Bearer ck_…} carries, sent the contract's way. */
  private static String apiKey(Target target) {
    String authorization = target.authorization();
    if (!authorization.startsWith(BEARER)) {
      throw new IllegalStateException("the Support agent contract takes an API key, not " + authorization.split(" ")[0]);
    }
    return authorization.substring(BEARER.length());
  }
}
