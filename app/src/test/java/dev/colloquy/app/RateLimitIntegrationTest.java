package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A tenant's limits, set by its own {@code PUT /v1/config}, over HTTP on the real node: the turn over
 * the rate and the session or turn over a quota are refused with 429, {@code Retry-After} and the error body.
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

  /**
   * The budget is read from the read side's running total of the tenant's month: once the first turn's
   * tokens are recorded, the next turn is refused until the month ends.
   */
  @Test
  void aTurnOverTheTenantsMonthlyTokenBudgetIsRefused() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"monthly_token_budget\": 1}");
    String sessionId = LimitedTenants.openSession(app.colloquy(), key);
    Credentialed.Reply first = LimitedTenants.startTurn(app.colloquy(), key, sessionId, "Question 1");
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    ReadTables tables = new ReadTables(app.colloquy().database().dataSource());
    ReadTables.await("the first turn's tokens are recorded", Duration.ofSeconds(10), () -> {
      Map<String, Object> session = tables.session(sessionId);
      return !session.isEmpty() && (long) session.get("prompt_tokens") + (long) session.get("completion_tokens") > 0;
    });

    Credentialed.Reply second = LimitedTenants.startTurn(app.colloquy(), key, sessionId, "Question 2");

    LimitedTenants.assertTooMany(second, "QUOTA_EXCEEDED", "a turn over the monthly token budget");
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    long untilNextMonth = Duration.between(now, now.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1))
        .toSeconds();
    assertThat(Long.parseLong(second.headers().firstValue("Retry-After").orElseThrow()))
        .as("seconds until the next month (UTC)").isBetween(untilNextMonth - 60, untilNextMonth + 1);
    assertThat(tables.session(sessionId).get("turn_count")).as("the refused turn never reached the session")
        .isEqualTo(1);
  }
}
