package dev.colloquy.bench;

import dev.colloquy.http.Json;
import java.util.function.LongConsumer;

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
    BenchFrames.read(BenchRequests.stream(target, BenchRequests.postJson(target, "/functions/v1/chat", body)
        .header("Accept", "text/event-stream"), "edge chat"), BenchFrames.named("chat.delta", "chat.done", tokens),
        "the edge stream ended without chat.done");
  }
}
