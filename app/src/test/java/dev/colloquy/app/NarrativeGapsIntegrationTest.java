package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gap detection sub-agent of a Writing Room chat over HTTP (seed 000): the mock model, asked for
 * a strict JSON schema, answers which character attributes the message relies on that the narrative
 * state lacks, and which it establishes; the gaps stream as {@code gap} events, the traits join the
 * chat's narrative state, and the journal says the model decided. A malformed answer, or a turn
 * without a model, leaves the decision to the retrieval confidence rule.
 */
class NarrativeGapsIntegrationTest {

  private static final String SECRET = "narrative-gaps-test-jwt-secret-0123456789";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock().withTokens(4), Map.of(
      "colloquy.auth.jwt.secret", SECRET,
      "colloquy.auth.jwt.default-tenant", "dev"));

  private static Api as(String user) {
    ObjectNode claims = SignedTokens.claims("authenticated", "https://project.supabase.co/auth/v1", "dev").put("sub", user);
    claims.remove("tenant_id");
    return new Api(app.colloquy().baseUrl(),
        SignedTokens.hs256(SignedTokens.header("HS256"), claims, SECRET.getBytes(StandardCharsets.UTF_8)));
  }

  private static ObjectNode chat(String chatId) {
    return Api.JSON.createObjectNode().put("chat_id", chatId).put("character_id", "mira");
  }

  private static String newChat(Api writer) throws Exception {
    String chatId = UUID.randomUUID().toString();
    Api.Response created = writer.post("/chats", chat(chatId).toString());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return chatId;
  }

  private static List<SseEvent> writingRoomTurn(Api writer, String chatId, String message) throws Exception {
    try (SseClient stream = SeedStreams.post(app.colloquy().baseUrl(), "/chat/stream",
        chat(chatId).put("message", message).toString(), "Authorization", "Bearer " + writer.apiKey())) {
      return stream.readToEnd(WAIT);
    }
  }

  private static List<SseEvent> gaps(List<SseEvent> events) {
    return events.stream().filter(event -> event.event().equals("gap")).toList();
  }

  /** The structured-output requests the mock received for a message containing {@code marker}. */
  private static List<JsonNode> gapRequests(String marker) {
    return app.mock().stats().chatRequests().stream()
        .filter(request -> request.path("response_format").path("type").asText().equals("json_schema"))
        .filter(request -> request.path("messages").toString().contains(marker))
        .toList();
  }

  /** The trace the journal's last completed turn holds. */
  private static JsonNode lastTrace(String chatId) throws Exception {
    JsonNode journal = app.api().get("/v1/sessions/" + chatId + "/journal").json();
    return journal.findValues("agent").stream().filter(JsonNode::isObject).reduce((first, second) -> second)
        .orElseThrow();
  }

  @Test
  void theModelNamesTheUndefinedAttributesAndItsTraitsJoinTheNarrativeState() throws Exception {
    Api writer = as("novelist-1");
    String chatId = newChat(writer);
    String message = "Mira looks up at the stranger by the river. mock-json:{\"gaps\":[{\"attribute\":\"eye colour\","
        + "\"suggestion\":\"Decide the colour of Mira's eyes\"}],\"character_traits\":[{\"attribute\":\"home\","
        + "\"value\":\"Lisbon\"}]}";

    List<SseEvent> events = writingRoomTurn(writer, chatId, message);

    assertThat(events.getLast().event()).isEqualTo("done");
    assertThat(gaps(events)).hasSize(1);
    assertThat(gaps(events).getFirst().text("attribute")).isEqualTo("eye colour");
    assertThat(gaps(events).getFirst().text("suggestion")).isEqualTo("Decide the colour of Mira's eyes");

    JsonNode asked = gapRequests("Mira looks up at the stranger").getFirst();
    JsonNode format = asked.path("response_format").path("json_schema");
    assertThat(format.path("name").asText()).isEqualTo("narrative_gaps");
    assertThat(format.path("strict").asBoolean()).isTrue();
    assertThat(format.path("schema").path("required").toString()).isEqualTo("[\"gaps\",\"character_traits\"]");

    JsonNode state = writer.session(chatId).path("narrative_state");
    assertThat(state.path("character_traits").path("home").asText()).isEqualTo("Lisbon");
    assertThat(state.path("open_gaps").findValuesAsText("attribute")).containsExactly("eye colour");
    JsonNode trace = lastTrace(chatId);
    assertThat(trace.path("gaps_by").asText()).isEqualTo("model");
    assertThat(trace.path("calls").findValuesAsText("step")).contains("gap_detection");
  }

  @Test
  void aMalformedAnswerLeavesTheGapsToTheConfidenceRule() throws Exception {
    Api writer = as("novelist-2");
    String chatId = newChat(writer);

    List<SseEvent> events = writingRoomTurn(writer, chatId,
        "Mira remembers her brother. mock-json:{\"gaps\": [{\"attribute\": oops");

    assertThat(gapRequests("Mira remembers her brother")).hasSize(1);
    assertThat(events.getLast().event()).isEqualTo("done");
    assertThat(gaps(events)).extracting(gap -> gap.text("attribute")).containsExactly("knowledge");
    assertThat(lastTrace(chatId).path("gaps_by").asText()).isEqualTo("rule");
    assertThat(writer.session(chatId).path("narrative_state").has("character_traits")).isFalse();
  }

  @Test
  void aTurnWithoutAModelLeavesTheGapsToTheConfidenceRule() throws Exception {
    Api writer = as("novelist-3");
    String chatId = newChat(writer);

    Api.Response turn = writer.post("/v1/sessions/" + chatId + "/turns",
        Api.turn("Mira sails to the island at dawn.", List.of("offline")));

    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    assertThat(gapRequests("Mira sails to the island")).as("no model was asked").isEmpty();
    JsonNode trace = lastTrace(chatId);
    assertThat(trace.path("gaps_by").asText()).isEqualTo("rule");
    assertThat(writer.session(chatId).path("narrative_state").path("open_gaps").findValuesAsText("attribute"))
        .containsExactly("knowledge");
  }
}
