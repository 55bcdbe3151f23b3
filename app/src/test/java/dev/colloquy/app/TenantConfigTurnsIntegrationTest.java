package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.model.TokenCounter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A tenant's configuration takes effect for its next turn, as the model sees it: the {@code
 * max_tokens} of every call, and a long session's history cut to the model's context.
 */
class TenantConfigTurnsIntegrationTest {

  private static final int CONTEXT_TOKENS = 2_000;

  @RegisterExtension
  static final RunningColloquy app =
      RunningColloquy.with(TestColloquy.fastMock(), Map.of("colloquy.llm.context-tokens", CONTEXT_TOKENS));

  @Test
  void everyModelCallSendsTheTenantsCurrentMaxTokens() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"max_tokens\": 77}");
    String sessionId = LimitedTenants.openSession(app.colloquy(), key);

    assertThat(LimitedTenants.startTurn(app.colloquy(), key, sessionId, "First").status()).isEqualTo(200);
    assertThat(lastAsked().path("max_tokens").asInt()).isEqualTo(77);

    Credentialed.Reply changed = Credentialed.send(app.colloquy().baseUrl(), "PUT", "/v1/config",
        "{\"max_tokens\": 55}", "Authorization", "Bearer " + key);
    assertThat(changed.status()).as(changed.body()).isEqualTo(200);
    assertThat(LimitedTenants.startTurn(app.colloquy(), key, sessionId, "Second").status()).isEqualTo(200);
    assertThat(lastAsked().path("max_tokens").asInt()).isEqualTo(55);
  }

  @Test
  void aChangedPersonaReachesTheTenantsNextTurnAndNoOtherTenants() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"persona_name\": \"Aria\"}");
    String other = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"persona_name\": \"Orla\"}");
    String sessionId = LimitedTenants.openSession(app.colloquy(), key);
    String otherSession = LimitedTenants.openSession(app.colloquy(), other);

    assertThat(LimitedTenants.startTurn(app.colloquy(), key, sessionId, "First").status()).isEqualTo(200);
    assertThat(systemMessage(lastAsked())).contains("You are Aria.");

    Credentialed.Reply changed = Credentialed.send(app.colloquy().baseUrl(), "PUT", "/v1/config",
        "{\"persona_name\": \"Bea\"}", "Authorization", "Bearer " + key);
    assertThat(changed.status()).as(changed.body()).isEqualTo(200);
    assertThat(LimitedTenants.startTurn(app.colloquy(), key, sessionId, "Second").status()).isEqualTo(200);
    assertThat(systemMessage(lastAsked())).contains("You are Bea.").doesNotContain("Aria");

    assertThat(LimitedTenants.startTurn(app.colloquy(), other, otherSession, "Elsewhere").status()).isEqualTo(200);
    assertThat(systemMessage(lastAsked())).contains("You are Orla.").doesNotContain("Bea");
  }

  @Test
  void aLongSessionsPromptStaysWithinTheModelsContext() throws Exception {
    int maxTokens = 300;
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"max_tokens\": " + maxTokens + "}");
    String sessionId = LimitedTenants.openSession(app.colloquy(), key);
    String padding = " and more".repeat(150);

    for (int turn = 1; turn <= 8; turn++) {
      Credentialed.Reply answered = LimitedTenants.startTurn(app.colloquy(), key, sessionId, "Question " + turn + padding);
      assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    }

    JsonNode asked = lastAsked();
    long promptTokens = 0;
    for (JsonNode message : asked.path("messages")) {
      promptTokens += TokenCounter.count(message.path("content").asText());
    }
    assertThat(promptTokens + maxTokens).isLessThanOrEqualTo(CONTEXT_TOKENS);
    assertThat(asked.path("messages").get(asked.path("messages").size() - 1).path("content").asText())
        .startsWith("Question 8 ");
    assertThat(asked.path("messages").findValuesAsText("content"))
        .as("the oldest questions were left out").noneMatch(content -> content.startsWith("Question 1 "));
  }

  private static String systemMessage(JsonNode asked) {
    return asked.path("messages").get(0).path("content").asText();
  }

  private static JsonNode lastAsked() {
    return app.mock().stats().chatRequests().getLast();
  }
}
