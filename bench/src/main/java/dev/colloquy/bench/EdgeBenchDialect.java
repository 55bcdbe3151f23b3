package dev.colloquy.bench;

import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * The Edge dialect (seed 003): each turn a {@code POST /functions/v1/chat} naming its session, whose
 * stream is {@code ready}, {@code chat.delta}* and {@code chat.done}; the session is opened as a
 * canonical one, outside the measured turns, as the contract leaves opening to others.
 */
final class EdgeBenchDialect implements BenchDialect {

  static final String NAME = "edge";

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
    String body = Json.MAPPER.createObjectNode().put("session_id", sessionId).put("content", message).toString();
    HttpRequest request = HttpRequest.newBuilder(URI.create(target.base() + "/functions/v1/chat"))
        .header("Accept", "text/event-stream").header("Content-Type", "application/json")
        .header("Authorization", target.authorization())
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    HttpResponse<Stream<String>> response = target.client().send(request, HttpResponse.BodyHandlers.ofLines());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("edge chat: HTTP " + response.statusCode());
    }
    String event = null;
    boolean done = false;
    Iterator<String> lines = response.body().iterator();
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("event: ")) {
        event = line.substring(7);
      } else if (line.startsWith("data: ")) {
        switch (String.valueOf(event)) {
          case "chat.delta" -> tokens.accept(System.nanoTime());
          case "chat.done" -> done = true;
          case "error" -> throw new IllegalStateException("turn failed: " + line.substring(6));
          default -> { }
        }
      }
    }
    if (!done) {
      throw new IllegalStateException("the edge stream ended without chat.done");
    }
  }
}
