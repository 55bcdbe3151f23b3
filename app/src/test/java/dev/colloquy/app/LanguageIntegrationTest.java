package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.persistence.tenant.TenantStore;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The language middleware over HTTP with the mock model: the detected language on the intent event,
 * the JSON answer and in the journal; a tenant that asks for translation gets the message translated
 * for the agent and the answer translated back; a bad translate value is refused with its field.
 */
class LanguageIntegrationTest {

  private static final String FRENCH = "Bonjour, je voudrais annuler ma commande de la semaine dernière, s'il vous plaît.";

  /** Lingua's models load with the first message; on a busy machine that takes a few seconds. */
  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(),
      Map.of("colloquy.agent.step-timeout", "30s", "colloquy.agent.language.detect", List.of("en", "fr", "de")));

  private static String tenantKey(String config) throws Exception {
    String key = new TenantStore(app.colloquy().database().dataSource()).create("language-" + UUID.randomUUID())
        .key().apiKey();
    Credentialed.Reply configured = Credentialed.send(app.colloquy().baseUrl(), "PUT", "/v1/config", config,
        "Authorization", "Bearer " + key);
    assertThat(configured.status()).as(configured.body()).isEqualTo(200);
    return key;
  }

  private static Credentialed.Reply call(String key, String method, String path, String body) throws Exception {
    return Credentialed.send(app.colloquy().baseUrl(), method, path, body, "Authorization", "Bearer " + key);
  }

  private static String session(String key) throws Exception {
    return call(key, "POST", "/v1/sessions", "{}").json().path("session_id").asText();
  }

  /** The model requests whose instructions contain {@code instructions}, oldest first. */
  private static List<JsonNode> asked(String instructions) {
    return app.mock().stats().chatRequests().stream()
        .filter(request -> request.path("messages").get(0).path("content").asText().contains(instructions))
        .toList();
  }

  @Test
  void aTenantThatAsksForTranslationGetsTheMessageTranslatedInAndTheAnswerOut() throws Exception {
    String key = tenantKey("{\"translate\": true, \"languages\": [\"en\"]}");
    String sessionId = session(key);

    Credentialed.Reply answered = call(key, "POST", "/v1/sessions/" + sessionId + "/turns", Api.turn(FRENCH));

    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(answered.json().path("language").asText()).isEqualTo("fr");
    JsonNode in = asked("from French to English").stream()
        .filter(request -> request.path("messages").get(1).path("content").asText().equals(FRENCH))
        .findFirst().orElseThrow(() -> new AssertionError("the message was not sent for translation"));
    assertThat(in.path("messages")).hasSize(2);
    String translatedMessage = app.mock().settings().text(Math.min(app.mock().settings().tokens(),
        in.path("max_tokens").asInt())).strip();
    assertThat(app.mock().stats().chatRequests()).as("the agent answers the translated message")
        .anySatisfy(request -> assertThat(last(request)).isEqualTo(translatedMessage));
    String answer = app.mock().settings().text(app.mock().settings().tokens());
    assertThat(asked("from English to French")).as("the answer goes back through the model")
        .anySatisfy(request -> assertThat(last(request)).isEqualTo(answer));
    assertThat(answered.json().path("text").asText()).isEqualTo(answer);

    JsonNode journal = call(key, "GET", "/v1/sessions/" + sessionId + "/journal", null).json();
    JsonNode agent = journal.findValues("agent").getFirst();
    assertThat(agent.path("language").asText()).isEqualTo("fr");
    assertThat(agent.path("calls").findValuesAsText("step")).contains("translation", "routing");
    assertThat(journal.findValues("message").stream().map(JsonNode::asText)).as("the journal keeps what the user wrote")
        .contains(FRENCH);
  }

  @Test
  void withoutTranslationTheLanguageIsShownAndTheMessagePassesThrough() throws Exception {
    String key = tenantKey("{}");
    String sessionId = session(key);

    List<SseEvent> events;
    try (SseClient stream = SseClient.open(java.net.http.HttpClient.newHttpClient(), java.net.http.HttpRequest
        .newBuilder(java.net.URI.create(app.colloquy().baseUrl() + "/v1/sessions/" + sessionId + "/turns"))
        .header("Authorization", "Bearer " + key).header("Accept", "text/event-stream")
        .header("Content-Type", "application/json")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(Api.turn(FRENCH))).build())) {
      events = stream.readToEnd(java.time.Duration.ofSeconds(60));
    }

    SseEvent intent = events.stream().filter(event -> event.event().equals("intent")).findFirst().orElseThrow();
    assertThat(intent.text("language")).isEqualTo("fr");
    assertThat(app.mock().stats().chatRequests()).as("the agent answers the message as written")
        .anySatisfy(request -> assertThat(last(request)).isEqualTo(FRENCH));
    String turnId = events.getFirst().text("turn_id");
    Credentialed.Reply replay = call(key, "GET", "/v1/sessions/" + sessionId + "/turns/" + turnId + "/events", null);
    assertThat(replay.body()).contains("event: intent").contains("\"language\":\"fr\"");
  }

  @Test
  void aTranslateThatIsNotABooleanIsRefusedWithItsField() throws Exception {
    String key = tenantKey("{}");

    Credentialed.Reply refused = call(key, "PUT", "/v1/config", "{\"translate\": \"yes\"}");

    assertThat(refused.status()).as(refused.body()).isEqualTo(422);
    Credentialed.assertErrorBody(refused, "INVALID_CONFIG", "a translate that is not a boolean");
    assertThat(refused.json().path("error").path("field").asText()).isEqualTo("translate");
    assertThat(call(key, "GET", "/v1/config", null).json().path("translate").asBoolean()).isFalse();
  }

  private static String last(JsonNode request) {
    JsonNode messages = request.path("messages");
    return messages.get(messages.size() - 1).path("content").asText();
  }
}
