package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A tenant's limits, set by its own {@code PUT /v1/config}, over HTTP on the real node: the turn over
 * the rate and the session over the quota are refused with 429, {@code Retry-After} and the error body.
 */
class RateLimitIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  @Test
  void theFourthTurnInAMinuteIsRateLimited() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"turns_per_minute\": 3}");
    String sessionId = LimitedTenants.openSession(app.colloquy(), key);

    for (int turn = 1; turn <= 3; turn++) {
      Credentialed.Reply answered = LimitedTenants.startTurn(app.colloquy(), key, sessionId, "Question " + turn);
      assertThat(answered.status()).as("turn " + turn + ": " + answered.body()).isEqualTo(200);
    }
    Credentialed.Reply fourth = LimitedTenants.startTurn(app.colloquy(), key, sessionId, "Question 4");

    LimitedTenants.assertTooMany(fourth, "RATE_LIMITED", "the fourth turn");
    List<String> asked = new ArrayList<>();
    Credentialed.send(app.colloquy().baseUrl(), "GET", "/v1/sessions/" + sessionId, null,
            "Authorization", "Bearer " + key)
        .json().path("messages").forEach(message -> {
          if (message.path("role").asText().equals("user")) {
            asked.add(message.path("content").asText());
          }
        });
    assertThat(asked).as("the refused turn never reached the session")
        .containsExactly("Question 1", "Question 2", "Question 3");
  }

  @Test
  void aSessionOverTheTenantsOpenSessionsIsRefused() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"max_open_sessions\": 2}");
    LimitedTenants.openSession(app.colloquy(), key);
    LimitedTenants.openSession(app.colloquy(), key);
    LimitedTenants.awaitOpenListed(app.colloquy(), key, 2);

    Credentialed.Reply third = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/sessions", "{}",
        "Authorization", "Bearer " + key);

    LimitedTenants.assertTooMany(third, "QUOTA_EXCEEDED", "the third open session");
  }
}
