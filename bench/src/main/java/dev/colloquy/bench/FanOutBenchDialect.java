package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.function.LongConsumer;

/**
 * The fan-out dialect as its seed's client drives it: {@code POST /v1/conversations}, then per turn
 * {@code POST …/turns} and {@code GET /v1/turns/{turnId}/stream}; the turn's time starts at the POST.
 * The node has one provider, so each turn fans out to one run, as a canonical turn runs one.
 */
final class FanOutBenchDialect implements BenchDialect {

  static final String NAME = "fanout";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String open(Target target) throws Exception {
    return BenchRequests.send(target, BenchRequests.postJson(target, "/v1/conversations", "{}"), 201, "open conversation")
        .path("id").asText();
  }

  @Override
  public void turn(Target target, String conversationId, String message, LongConsumer tokens) throws Exception {
    String body = Json.MAPPER.createObjectNode().put("prompt", message).toString();
    String streamUrl = BenchRequests.send(target,
        BenchRequests.postJson(target, "/v1/conversations/" + conversationId + "/turns", body), 201, "turn")
        .path("streamUrl").asText();
    HttpRequest.Builder stream = HttpRequest.newBuilder(URI.create(target.base() + streamUrl))
        .header("Accept", "text/event-stream").header(BenchRequests.AUTHORIZATION, target.authorization()).GET();
    BenchFrames.read(BenchRequests.stream(target, stream, "stream"), (name, data) -> {
      JsonNode event = Json.MAPPER.readTree(data);
      return switch (event.path("type").asText()) {
        case "delta" -> {
          tokens.accept(System.nanoTime());
          yield false;
        }
        case "run_done" -> true;
        case "run_error" -> throw new IllegalStateException("run failed: " + event);
        default -> false;
      };
    }, "the turn's stream ended without run_done");
  }
}
