package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.persistence.tenant.TenantStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code structured_data_lookup} over real HTTP: the mock model asks for the tool, the tenant's data
 * webhook (a receiver this test runs on loopback, which the operator allows) gets the query signed
 * with the tenant's webhook secret, and its JSON reaches the model in its next request; without a
 * webhook, with a failing, slow or oversized one, or one at a loopback address the operator did not
 * allow, the model reads an error and the turn still completes.
 */
class StructuredDataLookupIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String LOOKUP = " mock-tool:structured_data_lookup{\"query\":\"order A-1234\"}";

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock().withTokens(4),
      Map.of("colloquy.agent.egress-allow", "127.0.0.1", "colloquy.agent.tools.data-lookup.timeout", "500ms",
          "colloquy.agent.tools.data-lookup.max-response-size", "2KiB"));

  private static DataWebhookReceiver receiver;
  /** On another loopback address, which the operator did not allow: nothing may reach it. */
  private static DataWebhookReceiver unallowed;

  @BeforeAll
  static void startReceivers() throws Exception {
    receiver = new DataWebhookReceiver("127.0.0.1");
    unallowed = new DataWebhookReceiver("127.0.0.2");
  }

  @AfterAll
  static void stopReceivers() {
    receiver.close();
    unallowed.close();
  }

  /** A tenant of its own whose data webhook is {@code url}; the secret its configuration showed once. */
  private record Tenant(Api api, String secret) {}

  private static Tenant tenant(String url) throws Exception {
    var created = new TenantStore(app.colloquy().database().dataSource()).create("data-" + UUID.randomUUID());
    Api api = new Api(app.colloquy().baseUrl(), created.key().apiKey());
    Api.Response configured = api.send("PUT", "/v1/config", "{\"data_webhook_url\": \"" + url + "\"}");
    assertThat(configured.status()).as(configured.body()).isEqualTo(200);
    assertThat(configured.json().path("data_webhook_url").asText()).isEqualTo(url);
    return new Tenant(api, configured.json().path("webhook_secret").asText(null));
  }

  private static List<SseEvent> stream(Api api, String sessionId, String message) throws Exception {
    try (SseClient stream = api.streamTurn(sessionId, Api.turn(message))) {
      return stream.readToEnd(WAIT);
    }
  }

  private static SseEvent only(List<SseEvent> events, String name) {
    List<SseEvent> named = events.stream().filter(event -> event.event().equals(name)).toList();
    assertThat(named).as(name).hasSize(1);
    return named.getFirst();
  }

  /** The error result the model was sent, after checking the turn still completed. */
  private static JsonNode failedLookup(List<SseEvent> events) throws Exception {
    assertThat(events.getLast().event()).isEqualTo("turn.completed");
    SseEvent result = only(events, "tool.result");
    assertThat(result.text("tool")).isEqualTo("structured_data_lookup");
    assertThat(result.json().path("ok").asBoolean()).isFalse();
    return Api.JSON.readTree(result.text("content"));
  }

  @Test
  void theWebhookGetsTheSignedQueryAndItsJsonReachesTheModel() throws Exception {
    Tenant tenant = tenant(receiver.url("/orders"));
    assertThat(tenant.secret()).startsWith("whsec_");
    String sessionId = tenant.api().openSession();
    String message = "Where is my parcel, it has not arrived?" + LOOKUP;

    List<SseEvent> events = stream(tenant.api(), sessionId, message);

    assertThat(events).extracting(SseEvent::event).containsSubsequence("tool.called", "tool.result", "token",
        "turn.completed");
    SseEvent called = only(events, "tool.called");
    assertThat(called.text("tool")).isEqualTo("structured_data_lookup");
    SseEvent result = only(events, "tool.result");
    assertThat(result.json().path("ok").asBoolean()).isTrue();
    assertThat(Api.JSON.readTree(result.text("content")).path("data"))
        .isEqualTo(Api.JSON.readTree(DataWebhookReceiver.ORDER));

    DataWebhookReceiver.Request request = receiver.requests().stream()
        .filter(received -> received.body().contains(sessionId)).findFirst().orElseThrow();
    JsonNode body = Api.JSON.readTree(request.body());
    assertThat(body.path("query").asText()).isEqualTo("order A-1234");
    assertThat(body.path("turn_id").asText()).isEqualTo(called.text("turn_id"));
    NodeProject.Run verified = NodeProject.installed("app/src/test/node/standard-webhooks").node("verify.mjs",
        List.of(), Map.of("WEBHOOK_SECRET", tenant.secret(), "WEBHOOK_ID", request.id(), "WEBHOOK_TIMESTAMP",
            request.timestamp(), "WEBHOOK_SIGNATURE", request.signature(), "WEBHOOK_BODY", request.body()),
        Duration.ofSeconds(30));
    assertThat(verified.exitCode()).as(verified.output()).isZero();

    JsonNode next = app.mock().stats().chatRequests().stream()
        .filter(sent -> sent.path("messages").toString().contains("Where is my parcel"))
        .filter(sent -> sent.path("messages").toString().contains("\"tool\"")).toList().getLast();
    JsonNode answered = next.path("messages").get(next.path("messages").size() - 1);
    assertThat(answered.path("role").asText()).isEqualTo("tool");
    assertThat(answered.path("tool_call_id").asText()).isEqualTo(called.text("call_id"));
    assertThat(Api.JSON.readTree(answered.path("content").asText()).path("data").path("status").asText())
        .isEqualTo("shipped");

    JsonNode tools = tenant.api().get("/v1/sessions/" + sessionId + "/journal").json().findValues("tools").getLast();
    assertThat(tools.findValuesAsText("type")).containsExactly("ToolCalled", "ToolResulted");
    assertThat(tools.findValuesAsText("tool")).containsOnly("structured_data_lookup");
  }

  @Test
  void aTenantWithoutADataWebhookTellsTheModelItIsNotConfigured() throws Exception {
    String sessionId = app.api().openSession();

    JsonNode content = failedLookup(stream(app.api(), sessionId, "Where is my order A-1234?" + LOOKUP));

    assertThat(content.path("error").asText()).isEqualTo("not_configured");
  }

  @Test
  void aWebhookAnswering500IsAnErrorTheModelReads() throws Exception {
    Tenant tenant = tenant(receiver.url("/broken"));

    JsonNode content = failedLookup(stream(tenant.api(), tenant.api().openSession(), "Where is order A-1234?" + LOOKUP));

    assertThat(content.path("error").asText()).isEqualTo("upstream_failed");
    assertThat(content.path("message").asText()).isEqualTo("The data webhook answered HTTP 500");
  }

  @Test
  void aWebhookSlowerThanTheTimeoutIsReportedTimedOutAndTheTurnCompletes() throws Exception {
    Tenant tenant = tenant(receiver.url("/slow"));
    try {
      JsonNode content = failedLookup(stream(tenant.api(), tenant.api().openSession(), "Is A-1234 shipped?" + LOOKUP));

      assertThat(content.path("error").asText()).isEqualTo("timed_out");
      assertThat(content.path("message").asText()).isEqualTo("The data webhook did not answer within 500 ms");
    } finally {
      receiver.release();
    }
  }

  @Test
  void anAnswerLargerThanTheCapIsRefused() throws Exception {
    Tenant tenant = tenant(receiver.url("/big"));

    JsonNode content = failedLookup(stream(tenant.api(), tenant.api().openSession(), "List my orders." + LOOKUP));

    assertThat(content.path("error").asText()).isEqualTo("too_large");
  }

  @Test
  void aLoopbackAddressTheOperatorDidNotAllowIsNeverCalled() throws Exception {
    Tenant tenant = tenant(unallowed.url("/orders"));

    JsonNode content = failedLookup(stream(tenant.api(), tenant.api().openSession(), "Where is A-1234?" + LOOKUP));

    assertThat(content.path("error").asText()).isEqualTo("refused");
    assertThat(unallowed.requests()).isEmpty();
  }

  @Test
  void aDataWebhookUrlThatIsNotAnAbsoluteHttpUrlIsRefusedWith422() throws Exception {
    var created = new TenantStore(app.colloquy().database().dataSource()).create("data-" + UUID.randomUUID());
    Api api = new Api(app.colloquy().baseUrl(), created.key().apiKey());

    Api.Response refused = api.send("PUT", "/v1/config", "{\"data_webhook_url\": \"ftp://example.com/data\"}");

    assertThat(refused.status()).isEqualTo(422);
    JsonNode error = refused.json().path("error");
    assertThat(error.path("code").asText()).isEqualTo("INVALID_CONFIG");
    assertThat(error.path("field").asText()).isEqualTo("data_webhook_url");
    assertThat(error.path("message").asText()).contains("absolute http or https URL");
    assertThat(error.path("trace_id").asText()).isNotBlank();
    assertThat(api.send("PUT", "/v1/config", "{\"data_webhook_url\": \"/relative\"}").status()).isEqualTo(422);
    assertThat(api.get("/v1/config").json().path("data_webhook_url").isNull()).isTrue();
  }
}
