package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One turn fanned out to two providers, each a mock model server on its own port, over real HTTP:
 * both stream, each run reports its provider and is priced at its provider's price, and one breaking
 * off does not stop the other.
 */
class TwoProvidersIntegrationTest {

  @RegisterExtension
  static final MockProviders app = MockProviders.start();

  @Test
  void bothProvidersStreamAndEachRunIsPricedByItsProvider() throws Exception {
    String sessionId = app.api().openSession();

    List<SseEvent> events;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Two opinions, please", List.of("alpha/mock", "beta/mock")))) {
      events = stream.readToEnd(Duration.ofSeconds(30));
    }

    List<String> runIds = ids(events.getFirst().json().path("run_ids"));
    Map<String, Long> tokensPerRun = events.stream().filter(event -> event.event().equals("token"))
        .collect(Collectors.groupingBy(event -> event.text("run_id"), Collectors.counting()));
    assertThat(tokensPerRun).containsOnlyKeys(runIds);
    List<SseEvent> completed = events.stream().filter(event -> event.event().equals("run.completed")).toList();
    assertThat(completed).extracting(event -> event.text("provider")).containsExactlyInAnyOrder("alpha", "beta");
    for (SseEvent run : completed) {
      JsonNode usage = run.json().path("usage");
      boolean alpha = run.text("provider").equals("alpha");
      assertThat(run.text("model")).isEqualTo("mock");
      assertThat(run.text("run_id")).isEqualTo(runIds.get(alpha ? 0 : 1));
      assertThat(usage.path("cost_usd").asDouble()).as(run.data()).isPositive().isCloseTo(
          MockProviders.cost(usage.path("prompt_tokens").asLong(), usage.path("completion_tokens").asLong(),
              alpha ? MockProviders.ALPHA_IN : MockProviders.BETA_IN, alpha ? MockProviders.ALPHA_OUT : MockProviders.BETA_OUT),
          within(1e-12));
    }
    assertThat(app.alpha().stats().chatRequests().getLast().path("model").asText()).isEqualTo("mock");
    assertThat(app.beta().stats().chatRequests()).isNotEmpty();
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
  }

  @Test
  void aProviderBreakingOffMidStreamFailsItsOwnRunWhileTheOtherCompletes() throws Exception {
    String sessionId = app.api().openSession();

    List<SseEvent> events;
    try (SseClient stream = app.api().streamTurn(sessionId, Api.turn("Go", List.of("alpha/mock", "beta/flaky", "gamma/unreachable")))) {
      events = stream.readToEnd(Duration.ofSeconds(30));
    }

    List<String> runIds = ids(events.getFirst().json().path("run_ids"));
    assertThat(events).filteredOn(event -> event.event().equals("token") && event.text("run_id").equals(runIds.get(1)))
        .as("beta streamed before it broke off").hasSize(MockProviders.FLAKY_TOKENS);
    SseEvent completed = single(events, "run.completed");
    assertThat(completed.text("provider")).isEqualTo("alpha");
    List<SseEvent> failed = events.stream().filter(event -> event.event().equals("run.failed")).toList();
    assertThat(failed).extracting(event -> event.text("provider") + "/" + event.text("model") + " " + event.text("run_id"))
        .containsExactlyInAnyOrder("beta/flaky " + runIds.get(1), "gamma/unreachable " + runIds.get(2));
    assertThat(failed).allSatisfy(run -> assertThat(run.text("code")).isNotBlank());
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
    assertThat(events.getLast().text("text")).isEqualTo(completed.text("text"));

    JsonNode summary = app.api().post("/v1/sessions/" + sessionId + "/close", "{}").json().path("summary");
    assertThat(summary.path("usage_by_model").fieldNames()).toIterable()
        .contains("alpha/mock", "beta/flaky", "gamma/unreachable");
  }

  @Test
  void aPlainModelNameIsTheFirstProvidersAndAnUnknownOneIsRefused() throws Exception {
    String sessionId = app.api().openSession();

    Api.Response plain = app.api().post("/v1/sessions/" + sessionId + "/turns", Api.turn("Hi", List.of("mock")));
    assertThat(plain.status()).as(plain.body()).isEqualTo(200);
    assertThat(plain.json().path("runs").get(0).path("provider").asText()).isEqualTo("alpha");

    for (String unknown : List.of("delta/mock", "beta/gpt-5", "gpt-5")) {
      Api.Response refused = app.api().post("/v1/sessions/" + sessionId + "/turns", Api.turn("Hi", List.of(unknown)));
      assertThat(refused.status()).as(refused.body()).isEqualTo(422);
      assertThat(refused.json().path("error").path("code").asText()).isEqualTo("UNKNOWN_MODEL");
      assertThat(refused.json().path("error").path("message").asText()).contains(unknown, "beta/flaky");
    }
  }

  @Test
  void theTenantsDefaultModelChoosesTheProviderOfATurnThatNamesNone() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"default_model\": \"beta/mock\"}");
    String sessionId = LimitedTenants.openSession(app.colloquy(), key);

    Credentialed.Reply answered = LimitedTenants.startTurn(app.colloquy(), key, sessionId, "Which provider?");

    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(answered.json().path("runs").get(0).path("provider").asText()).isEqualTo("beta");
    Credentialed.Reply refused = Credentialed.send(app.colloquy().baseUrl(), "PUT", "/v1/config",
        "{\"default_model\": \"delta/mock\"}", "Authorization", "Bearer " + key);
    assertThat(refused.status()).as(refused.body()).isEqualTo(422);
    assertThat(refused.body()).contains("default_model");
  }

  private static List<String> ids(JsonNode array) {
    return java.util.stream.StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
  }

  private static SseEvent single(List<SseEvent> events, String name) {
    List<SseEvent> matching = events.stream().filter(event -> event.event().equals(name)).toList();
    assertThat(matching).as("%s events in %s", name, events).hasSize(1);
    return matching.getFirst();
  }
}
