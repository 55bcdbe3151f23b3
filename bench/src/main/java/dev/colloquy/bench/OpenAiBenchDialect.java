package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.http.Json;
import java.net.http.HttpRequest;
import java.util.function.LongConsumer;

/**
 * The OpenAI-compatible dialect: each turn a streamed {@code POST /v1/chat/completions} naming its
 * session by {@code X-Session-Id}, as a chat tool does once it has one; the session is opened as a
 * canonical one, outside the measured turns.
 */
final class OpenAiBenchDialect implements BenchDialect {

  static final String NAME = "openai";
  static final String MODEL = "mock";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String open(Target target) throws Exception {
    return CanonicalBenchDialect.openSession(target);
  }

  @Override
  public void turn(Target target, String sessionId, String message, LongConsumer tokens) throws Exception {
    ObjectNode body = Json.MAPPER.createObjectNode().put("model", MODEL).put("stream", true);
    body.putArray("messages").addObject().put("role", "user").put("content", message);
    HttpRequest.Builder request = BenchRequests.postJson(target, "/v1/chat/completions", body.toString())
        .header("X-Session-Id", sessionId);
    BenchFrames.read(BenchRequests.stream(target, request, "completion"), (event, data) -> {
      if (data.equals("[DONE]")) {
        return true;
      }
      JsonNode chunk = Json.MAPPER.readTree(data);
      if (chunk.has("error")) {
        throw new IllegalStateException("completion failed: " + chunk);
      }
      if (!chunk.path("choices").path(0).path("delta").path("content").asText("").isEmpty()) {
        tokens.accept(System.nanoTime());
      }
      return false;
    }, "the completion's stream ended without [DONE]");
  }
}
