package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.http.Json;
import java.net.http.HttpRequest;
import java.util.function.LongConsumer;

/**
 * The Support agent dialect (seed 004) as its widget drives it, with the tenant's key in
 * {@code X-API-Key}: {@code POST /v1/session/start}, then per turn {@code POST /v1/chat/message} with
 * {@code "stream": true}, whose {@code {"delta", "done": false}} events end with {@code "done": true}.
 */
final class SupportBenchDialect implements BenchDialect {

  static final String NAME = "support";
  private static final String BEARER = "Bearer ";
  private static final String API_KEY = "X-API-Key";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String open(Target target) throws Exception {
    return BenchRequests.send(target, BenchRequests.postJson(target, "/v1/session/start", "{}", API_KEY, apiKey(target)),
        200, "start session").path("session_id").asText();
  }

  @Override
  public void turn(Target target, String sessionId, String message, LongConsumer tokens) throws Exception {
    String body = Json.MAPPER.createObjectNode().put("session_id", sessionId).put("message", message)
        .put("stream", true).toString();
    HttpRequest.Builder request = BenchRequests.postJson(target, "/v1/chat/message", body, API_KEY, apiKey(target))
        .header("Accept", "text/event-stream");
    BenchFrames.read(BenchRequests.stream(target, request, "message stream"), (name, data) -> {
      JsonNode event = Json.MAPPER.readTree(data);
      if (event.has("error")) {
        throw new IllegalStateException("turn failed: " + event);
      }
      if (event.path("done").asBoolean()) {
        return true;
      }
      if (event.has("delta")) {
        tokens.accept(System.nanoTime());
      }
      return false;
    }, "the message stream ended without done");
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
