package dev.colloquy.bench;

import dev.colloquy.http.Json;
import java.util.UUID;
import java.util.function.LongConsumer;

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
    BenchRequests.send(target, BenchRequests.postJson(target, "/chats", body), 201, "create chat");
    return chatId;
  }

  @Override
  public void turn(Target target, String chatId, String message, LongConsumer tokens) throws Exception {
    String body = Json.MAPPER.createObjectNode().put("chat_id", chatId).put("character_id", CHARACTER)
        .put("message", message).toString();
    BenchFrames.read(BenchRequests.stream(target, BenchRequests.postJson(target, "/chat/stream", body)
        .header("Accept", "text/event-stream"), "chat stream"), BenchFrames.named("token", "done", tokens),
        "the chat's stream ended without done");
  }
}
