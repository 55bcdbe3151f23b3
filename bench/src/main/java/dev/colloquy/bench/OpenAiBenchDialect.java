package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

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
    HttpRequest request = HttpRequest.newBuilder(URI.create(target.base() + "/v1/chat/completions"))
        .header("Content-Type", "application/json").header("Authorization", target.authorization())
        .header("X-Session-Id", sessionId)
        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
    HttpResponse<Stream<String>> response = target.client().send(request, HttpResponse.BodyHandlers.ofLines());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("completion: HTTP " + response.statusCode());
    }
    boolean done = false;
    Iterator<String> lines = response.body().iterator();
    while (lines.hasNext()) {
      String line = lines.next();
      if (!line.startsWith("data: ")) {
        continue;
      }
      if (line.equals("data: [DONE]")) {
        done = true;
        continue;
      }
      JsonNode chunk = Json.MAPPER.readTree(line.substring(6));
      if (chunk.has("error")) {
        throw new IllegalStateException("completion failed: " + chunk);
      }
      if (!chunk.path("choices").path(0).path("delta").path("content").asText("").isEmpty()) {
        tokens.accept(System.nanoTime());
      }
    }
    if (!done) {
      throw new IllegalStateException("the completion's stream ended without [DONE]");
    }
  }
}
