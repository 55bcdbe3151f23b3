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
    HttpResponse<String> response = target.client().send(HttpRequest.newBuilder(URI.create(target.base() + "/v1/conversations"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
        .header("Authorization", target.authorization()).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException("open conversation: " + response.statusCode() + " " + response.body());
    }
    return Json.MAPPER.readTree(response.body()).path("id").asText();
  }

  @Override
  public void turn(Target target, String conversationId, String message, LongConsumer tokens) throws Exception {
    HttpResponse<String> created = target.client().send(HttpRequest.newBuilder(
            URI.create(target.base() + "/v1/conversations/" + conversationId + "/turns"))
        .POST(HttpRequest.BodyPublishers.ofString(Json.MAPPER.createObjectNode().put("prompt", message).toString()))
        .header("Content-Type", "application/json").header("Authorization", target.authorization()).build(),
        HttpResponse.BodyHandlers.ofString());
    if (created.statusCode() != 201) {
      throw new IllegalStateException("turn: " + created.statusCode() + " " + created.body());
    }
    String streamUrl = Json.MAPPER.readTree(created.body()).path("streamUrl").asText();
    HttpResponse<Stream<String>> response = target.client().send(HttpRequest.newBuilder(URI.create(target.base() + streamUrl))
        .header("Accept", "text/event-stream").header("Authorization", target.authorization()).GET().build(),
        HttpResponse.BodyHandlers.ofLines());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("stream: HTTP " + response.statusCode());
    }
    boolean done = false;
    Iterator<String> lines = response.body().iterator();
    while (lines.hasNext()) {
      String line = lines.next();
      if (!line.startsWith("data: ")) {
        continue;
      }
      JsonNode event = Json.MAPPER.readTree(line.substring(6));
      switch (event.path("type").asText()) {
        case "delta" -> tokens.accept(System.nanoTime());
        case "run_done" -> done = true;
        case "run_error" -> throw new IllegalStateException("run failed: " + event);
        default -> { }
      }
    }
    if (!done) {
      throw new IllegalStateException("the turn's stream ended without run_done");
    }
  }
}
