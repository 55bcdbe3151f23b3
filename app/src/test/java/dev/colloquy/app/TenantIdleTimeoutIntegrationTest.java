package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reaper closes each tenant's sessions after that tenant's own idle timeout: a tenant that chose
 * an hour keeps its session open while the server's three-second default closes another tenant's.
 */
class TenantIdleTimeoutIntegrationTest {

  private static final Duration SERVER_IDLE_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration CHECK_INTERVAL = Duration.ofMillis(500);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.session.idle-timeout", SERVER_IDLE_TIMEOUT.toSeconds() + "s",
      "colloquy.session.idle-check-interval", CHECK_INTERVAL.toMillis() + "ms"));

  @Test
  void aTenantsOwnIdleTimeoutDecidesWhenItsSessionsClose() throws Exception {
    // Accepted although the server's own timeout is below what a tenant may choose.
    String patientKey = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"idle_timeout_seconds\": 3600}");
    String patient = LimitedTenants.openSession(app.colloquy(), patientKey);
    Credentialed.Reply patientTurn = LimitedTenants.startTurn(app.colloquy(), patientKey, patient, "I may be a while");
    assertThat(patientTurn.status()).as(patientTurn.body()).isEqualTo(200);
    Api api = app.api();
    String hasty = api.openSession();
    Api.Response hastyTurn = api.post("/v1/sessions/" + hasty + "/turns", Api.turn("Then I go quiet"));
    assertThat(hastyTurn.status()).as(hastyTurn.body()).isEqualTo(200);

    ReadTables.await("the reaper closes the session of the tenant on the server's timeout", Duration.ofSeconds(20),
        () -> api.session(hasty).path("status").asText().equals("closed"));
    assertThat(api.session(hasty).path("close_reason").asText()).isEqualTo("idle");
    // The pause is the point: further checks of the reaper must pass the patient tenant's session by.
    LockSupport.parkNanos(CHECK_INTERVAL.multipliedBy(4).toNanos());

    Credentialed.Reply session = Credentialed.send(app.colloquy().baseUrl(), "GET", "/v1/sessions/" + patient, null,
        "Authorization", "Bearer " + patientKey);
    assertThat(session.json().path("status").asText()).isEqualTo("open");
    JsonNode events = Credentialed.send(app.colloquy().baseUrl(), "GET", "/v1/sessions/" + patient + "/journal", null,
        "Authorization", "Bearer " + patientKey).json().path("events");
    assertThat(events.findValuesAsText("type")).doesNotContain("SessionClosed");
  }
}
