package dev.colloquy.bench;

import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.UUID;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * The Writing Room dialect (seed 000) as its client drives it: {@code POST /chats} with the id the
 * client chose, then per turn {@code POST /chat/stream}, whose {@code token} events end with
 * {@code done}; the chat is created outside the measured turns.
 */
final class WritingRoomBenchDialect implements BenchDialect {

  static final String NAME = "writing-room";
  private static final String CHARACTER = "bench-character";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String open(Target target) throws Exception {
    String chatId = UUID.randomUUID().toString();
    String body = Json.MAPPER.createObjectNode().put("chat_id", chatId).put("character_id", CHARACTER).toString();
    HttpResponse<String> response = target.client().send(HttpRequest.newBuilder(URI.create(target.base() + "/chats"))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json")
        .header("Authorization", target.authorization()).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException("create chat: " + response.statusCode() + " " + response.body());
    }
    return chatId;
  }

  @Override
  public void turn(Target target, String chatId, String message, LongConsumer tokens) throws Exception {
    String body = Json.MAPPER.createObjectNode().put("chat_id", chatId).put("character_id", CHARACTER)
        .put("message", message).toString();
    HttpRequest request = HttpRequest.newBuilder(URI.create(target.base() + "/chat/stream"))
        .header("Accept", "text/event-stream").header("Content-Type", "application/json")
        .header("Authorization", target.authorization())
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    HttpResponse<Stream<String>> response = target.client().send(request, HttpResponse.BodyHandlers.ofLines());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("chat stream: HTTP " + response.statusCode());
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
          case "token" -> tokens.accept(System.nanoTime());
          case "done" -> done = true;
          case "error" -> throw new IllegalStateException("turn failed: " + line.substring(6));
          default -> { }
        }
      }
    }
    if (!done) {
      throw new IllegalStateException("the chat's stream ended without done");
    }
  }
}
