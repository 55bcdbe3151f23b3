package dev.colloquy.bench;

import dev.colloquy.http.Json;
import java.util.function.LongConsumer;

/** The canonical API: {@code POST /v1/sessions}, then {@code POST …/turns} with {@code Accept: text/event-stream}. */
final class CanonicalBenchDialect implements BenchDialect {

  static final String NAME = "canonical";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String open(Target target) throws Exception {
    return openSession(target);
  }

  /** A canonical session, which the OpenAI, Edge and other dialects' turns also name. */
  static String openSession(Target target) throws Exception {
    return BenchRequests.send(target, BenchRequests.postJson(target, "/v1/sessions", "{}"), 201, "open session")
        .path("session_id").asText();
  }

  @Override
  public void turn(Target target, String sessionId, String message, LongConsumer tokens) throws Exception {
    String body = Json.MAPPER.createObjectNode().put("message", message).toString();
    BenchFrames.read(BenchRequests.stream(target, BenchRequests.postJson(target, "/v1/sessions/" + sessionId + "/turns", body)
        .header("Accept", "text/event-stream"), "turn"), (event, data) -> {
          if ("token".equals(event)) {
            tokens.accept(System.nanoTime());
          } else if (event != null && event.startsWith("turn.") && !event.equals("turn.started")
              && !event.equals("turn.completed")) {
            throw new IllegalStateException("turn ended with " + event + ": " + data);
          }
          return "turn.completed".equals(event);
        }, "the turn's stream ended without turn.completed");
  }
}
