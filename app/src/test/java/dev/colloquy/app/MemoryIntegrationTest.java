package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.persistence.tenant.TenantStore;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Long-term memory over HTTP (seed 002): facts a user states are noted after the turn, recalled into
 * the prompt of a new session of the same user, and never into another user's or another tenant's;
 * the user's context joins the prompt; a user sees and erases what is kept.
 */
class MemoryIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  private static String newTenantKey() {
    return new TenantStore(app.colloquy().database().dataSource()).create("memory-" + UUID.randomUUID()).key().apiKey();
  }

  private static Credentialed.Reply call(String key, String user, String method, String path, String body)
      throws Exception {
    List<String> headers = new ArrayList<>(List.of("Authorization", "Bearer " + key));
    if (user != null) {
      headers.addAll(List.of("X-User-Id", user));
    }
    return Credentialed.send(app.colloquy().baseUrl(), method, path, body, headers.toArray(String[]::new));
  }

  private static String sessionOf(String key, String user) throws Exception {
    Credentialed.Reply opened = call(key, user, "POST", "/v1/sessions", "{}");
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    return opened.json().path("session_id").asText();
  }

  private static JsonNode turn(String key, String user, String sessionId, String message) throws Exception {
    Credentialed.Reply answered = call(key, user, "POST", "/v1/sessions/" + sessionId + "/turns", Api.turn(message));
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    return answered.json();
  }

  /** The messages of the model call that answered {@code message} (not the agent's own calls). */
  private static JsonNode callFor(String message) {
    List<JsonNode> asked = app.mock().stats().chatRequests();
    for (int i = asked.size() - 1; i >= 0; i--) {
      JsonNode messages = asked.get(i).path("messages");
      if (messages.get(messages.size() - 1).path("content").asText().equals(message)) {
        return messages;
      }
    }
    throw new AssertionError("the model was not asked: " + message);
  }

  /** Everything the model was told with {@code message}: system message, data, history. */
  private static String promptOf(String message) {
    StringBuilder text = new StringBuilder();
    callFor(message).forEach(m -> text.append(m.path("content").asText()).append('\n'));
    return text.toString();
  }

  /** The system message of that call: the operator's instructions only. */
  private static String systemOf(String message) {
    StringBuilder system = new StringBuilder();
    callFor(message).forEach(m -> system.append(m.path("role").asText().equals("system") ? m.path("content").asText() : ""));
    return system.toString();
  }

  private static List<String> memories(String key, String user, String of) throws Exception {
    Credentialed.Reply listed = call(key, user, "GET", "/v1/users/" + of + "/memories", null);
    assertThat(listed.status()).as(listed.body()).isEqualTo(200);
    return listed.json().path("memories").findValuesAsText("content");
  }

  @Test
  void whatAUserSaidIsRecalledInTheirNextSessionAndNowhereElse() throws Exception {
    String key = newTenantKey();
    String first = sessionOf(key, "priya");
    turn(key, "priya", first, "My name is Priya and I prefer email updates.");

    assertThat(memories(key, null, "priya"))
        .containsExactlyInAnyOrder("The user's name is Priya", "The user prefers email updates");
    JsonNode journal = call(key, null, "GET", "/v1/sessions/" + first + "/journal", null).json();
    assertThat(journal.findValues("agent").getFirst().path("memories")).extracting(JsonNode::asText)
        .containsExactlyInAnyOrder("The user's name is Priya", "The user prefers email updates");

    String second = sessionOf(key, "priya");
    turn(key, "priya", second, "How will you contact me about my order?");
    // Remembered facts come from the user's own words: they reach the model as data, never as instructions.
    assertThat(promptOf("How will you contact me about my order?"))
        .contains("<user_memory>\nThe user prefers email updates\n</user_memory>");
    assertThat(systemOf("How will you contact me about my order?")).doesNotContain("email");

    String otherUser = sessionOf(key, "rahul");
    turn(key, "rahul", otherUser, "How will you contact me about my refund?");
    assertThat(promptOf("How will you contact me about my refund?")).doesNotContain("Priya").doesNotContain("email");

    String otherTenant = newTenantKey();
    String sameUserIdElsewhere = sessionOf(otherTenant, "priya");
    turn(otherTenant, "priya", sameUserIdElsewhere, "How will you contact me about my parcel?");
    assertThat(promptOf("How will you contact me about my parcel?")).doesNotContain("Priya").doesNotContain("email");
    assertThat(memories(otherTenant, null, "priya")).isEmpty();
  }

  @Test
  void aUserSeesAndErasesWhatIsKeptAboutThemAndNoOneElses() throws Exception {
    String key = newTenantKey();
    turn(key, "ana", sessionOf(key, "ana"), "My email is ana@example.com. I live in Lisbon.");
    assertThat(memories(key, "ana", "ana"))
        .containsExactlyInAnyOrder("The user's email is ana@example.com", "The user lives in Lisbon");

    Credentialed.Reply someoneElses = call(key, "bob", "GET", "/v1/users/ana/memories", null);
    assertThat(someoneElses.status()).isEqualTo(404);
    Credentialed.assertErrorBody(someoneElses, "USER_NOT_FOUND", "another user's memories");

    JsonNode listed = call(key, "ana", "GET", "/v1/users/ana/memories", null).json();
    String one = listed.path("memories").get(0).path("memory_id").asText();
    assertThat(listed.path("memories").get(0).path("source").asText()).isEqualTo("extraction");
    assertThat(call(key, "ana", "DELETE", "/v1/users/ana/memories/" + one, null).status()).isEqualTo(204);
    Credentialed.Reply again = call(key, "ana", "DELETE", "/v1/users/ana/memories/" + one, null);
    assertThat(again.status()).isEqualTo(404);
    Credentialed.assertErrorBody(again, "MEMORY_NOT_FOUND", "a memory deleted before");
    assertThat(memories(key, "ana", "ana")).hasSize(1);

    Credentialed.Reply erased = call(key, null, "DELETE", "/v1/users/ana/memories", null);
    assertThat(erased.json().path("deleted").asInt()).isEqualTo(1);
    assertThat(memories(key, "ana", "ana")).isEmpty();
  }

  @Test
  void theTenantSetsAUsersContextAndItJoinsThePrompt() throws Exception {
    String key = newTenantKey();
    Credentialed.Reply set = call(key, null, "PUT", "/v1/users/meera/context",
        "{\"plan\": \"pro\", \"usage\": {\"orders_this_month\": 4}, \"preferences\": {\"channel\": \"sms\"}}");
    assertThat(set.status()).as(set.body()).isEqualTo(200);
    assertThat(call(key, "meera", "GET", "/v1/users/meera/context", null).json().path("plan").asText()).isEqualTo("pro");

    turn(key, "meera", sessionOf(key, "meera"), "Which plan am I on right now?");

    assertThat(promptOf("Which plan am I on right now?")).contains("<user_context>\nPlan: pro\n")
        .contains("Usage: {\"orders_this_month\":4}").contains("Preferences: {\"channel\":\"sms\"}");
    assertThat(systemOf("Which plan am I on right now?")).doesNotContain("orders_this_month").doesNotContain("sms");
  }

  @Test
  void aBadContextIsRefusedWithItsReason() throws Exception {
    String key = newTenantKey();
    Credentialed.Reply unknown = call(key, null, "PUT", "/v1/users/x/context", "{\"tier\": \"gold\"}");
    assertThat(unknown.status()).isEqualTo(422);
    Credentialed.assertErrorBody(unknown, "INVALID_FIELD", "an unknown field");
    Credentialed.Reply wrongType = call(key, null, "PUT", "/v1/users/x/context", "{\"plan\": 3}");
    assertThat(wrongType.status()).isEqualTo(422);
    Credentialed.assertErrorBody(wrongType, "INVALID_FIELD", "a plan that is not a string");
    Credentialed.Reply malformed = call(key, null, "PUT", "/v1/users/x/context", "{\"plan\": ");
    assertThat(malformed.status()).isEqualTo(400);
    Credentialed.assertErrorBody(malformed, "MALFORMED_JSON", "a body that is not JSON");
    Credentialed.Reply twice = call(key, null, "PUT", "/v1/users/x/context", "{\"plan\": \"pro\", \"plan\": \"free\"}");
    assertThat(twice.status()).isEqualTo(400);
    Credentialed.assertErrorBody(twice, "DUPLICATE_JSON_KEY", "a body naming plan twice");
    Credentialed.Reply nul = call(key, null, "PUT", "/v1/users/x/context",
        "{\"plan\": \"pro\", \"preferences\": {\"notes\": [\"a\\u0000b\"]}}");
    assertThat(nul.status()).as(nul.body()).isEqualTo(422);
    Credentialed.assertErrorBody(nul, "INVALID_FIELD", "a NUL character deep in the preferences");
    assertThat(call(key, null, "GET", "/v1/users/x/context", null).json().path("plan").isNull()).isTrue();
  }
}
