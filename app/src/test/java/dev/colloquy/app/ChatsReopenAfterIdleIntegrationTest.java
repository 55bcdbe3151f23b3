package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Writing Room chat (seed 000) and a fan-out conversation (seed 001) live as long as their users keep
 * them: their contracts never close one. The engine still closes them when idle, so that each is billed,
 * and the next turn opens them again, as a new stretch with billing records of its own, where the
 * canonical API answers 409 SESSION_CLOSED (IdleCloseIntegrationTest).
 */
class ChatsReopenAfterIdleIntegrationTest {

  private static final String SECRET = "writing-room-test-jwt-secret-0123456789";
  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), java.util.Map.of(
      "colloquy.auth.jwt.secret", SECRET,
      "colloquy.auth.jwt.default-tenant", "dev",
      "colloquy.session.idle-timeout", IDLE_TIMEOUT.toSeconds() + "s",
      "colloquy.session.idle-check-interval", "500ms"));

  private static Api writer() {
    ObjectNode claims = SignedTokens.claims("authenticated", "https://project.supabase.co/auth/v1", "dev")
        .put("sub", "alice");
    claims.remove("tenant_id");
    return new Api(app.colloquy().baseUrl(),
        SignedTokens.hs256(SignedTokens.header("HS256"), claims, SECRET.getBytes(StandardCharsets.UTF_8)));
  }

  private static List<SseEvent> chatTurn(Api writer, String chatId, String message) throws Exception {
    String body = Api.JSON.createObjectNode().put("chat_id", chatId).put("character_id", "purplefrog")
        .put("message", message).toString();
    try (SseClient stream = SeedStreams.post(app.colloquy().baseUrl(), "/chat/stream", body,
        "Authorization", "Bearer " + writer.apiKey())) {
      assertThat(stream.response().statusCode()).isEqualTo(200);
      return stream.readToEnd(WAIT);
    }
  }

  private static void awaitStatus(String sessionId, String status) throws Exception {
    ReadTables.await("session " + sessionId + " " + status, WAIT,
        () -> app.api().session(sessionId).path("status").asText().equals(status));
  }

  @Test
  void aWritingRoomChatClosedForIdlenessGoesOnWithItsNextTurnAndEachStretchIsBilled() throws Exception {
    Api writer = writer();
    String chatId = UUID.randomUUID().toString();
    String chat = Api.JSON.createObjectNode().put("chat_id", chatId).put("character_id", "purplefrog").toString();
    Api.Response created = writer.post("/chats", chat);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(chatTurn(writer, chatId, "Who is PurpleFrog?").getLast().event()).isEqualTo("done");
    awaitStatus(chatId, "closed");
    assertThat(app.api().session(chatId).path("close_reason").asText()).isEqualTo("idle");

    List<SseEvent> later = chatTurn(writer, chatId, "And what does PurpleFrog fear?");
    assertThat(later.getLast().event()).as(later.toString()).isEqualTo("done");
    assertThat(later.getLast().json().path("chat_id").asText()).isEqualTo(chatId);
    JsonNode reopened = app.api().session(chatId);
    assertThat(reopened.path("messages")).extracting(m -> m.path("role").asText())
        .containsExactly("user", "assistant", "user", "assistant");

    awaitStatus(chatId, "closed");
    String month = LocalDate.now(ZoneOffset.UTC).toString().substring(0, 7);
    ReadTables.await("both stretches billed", WAIT, () -> records(month, chatId).size() == 4);
    List<JsonNode> records = records(month, chatId);
    assertThat(records).extracting(r -> r.path("kind").asText())
        .containsExactly("session_start", "session_end", "session_start", "session_end");
    assertThat(records).filteredOn(r -> r.path("kind").asText().equals("session_end")).allSatisfy(end -> {
      assertThat(end.path("reason").asText()).isEqualTo("idle");
      assertThat(end.path("turns").asInt()).as("each stretch bills its own turn").isEqualTo(1);
      assertThat(end.path("completion_tokens").asLong()).isPositive();
    });
  }

  @Test
  void aFanOutConversationClosedForIdlenessTakesItsNextTurn() throws Exception {
    Api api = app.api();
    Api.Response created = api.post("/v1/conversations", "{}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String conversationId = created.json().path("id").asText();
    Api.Response first = api.post("/v1/conversations/" + conversationId + "/turns", "{\"prompt\": \"Compare\"}");
    assertThat(first.status()).as(first.body()).isEqualTo(201);
    ReadTables.await("the conversation closed for idleness", WAIT,
        () -> api.get("/v1/conversations/" + conversationId).json().path("status").asText().equals("closed"));

    Api.Response next = api.post("/v1/conversations/" + conversationId + "/turns", "{\"prompt\": \"Again\"}");
    assertThat(next.status()).as(next.body()).isEqualTo(201);
    JsonNode conversation = api.get("/v1/conversations/" + conversationId).json();
    assertThat(conversation.path("status").asText()).isEqualTo("open");
    assertThat(conversation.path("turns")).extracting(t -> t.path("prompt").asText()).containsExactly("Compare", "Again");
  }

  private static List<JsonNode> records(String month, String sessionId) throws Exception {
    JsonNode report = app.api().get("/v1/billing?period=" + month).json();
    return StreamSupport.stream(report.path("records").spliterator(), false)
        .filter(record -> record.path("session_id").asText().equals(sessionId)).toList();
  }
}
