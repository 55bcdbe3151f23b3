package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.persistence.tenant.TenantStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A support conversation escalated by each of the tenant's rules, as its client, its webhook
 * receiver and its bill see it: the signed webhook (verified by the Standard Webhooks reference
 * library, not by Colloquy's code) arrives after the receiver failed twice, later messages are
 * forwarded to the human, an operator hands the session back; a webhook that never gets through, or
 * whose URL the egress guard refuses, is billed as failed.
 */
class EscalationIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.agent.egress-allow", "127.0.0.1",
      "colloquy.agent.webhooks.initial-backoff", "100ms",
      "colloquy.agent.webhooks.poll-interval", "100ms"));

  private static WebhookReceiver receiver;

  @BeforeAll
  static void startReceiver() throws Exception {
    receiver = new WebhookReceiver();
  }

  @AfterAll
  static void stopReceiver() {
    receiver.close();
  }

  /** A tenant of its own, configured with {@code config}; its key and the webhook secret the PUT showed once. */
  private record Tenant(String tenantId, String key, String secret) {
    String[] auth(String... more) {
      List<String> headers = new ArrayList<>(List.of("Authorization", "Bearer " + key));
      headers.addAll(List.of(more));
      return headers.toArray(String[]::new);
    }
  }

  private static Tenant tenant(String config) throws Exception {
    var created = new TenantStore(app.colloquy().database().dataSource()).create("support-" + UUID.randomUUID());
    String key = created.key().apiKey();
    Credentialed.Reply configured = Credentialed.send(app.colloquy().baseUrl(), "PUT", "/v1/config", config,
        "Authorization", "Bearer " + key);
    assertThat(configured.status()).as(configured.body()).isEqualTo(200);
    return new Tenant(created.tenant().tenantId(), key, configured.json().path("webhook_secret").asText(null));
  }

  private static String open(Tenant tenant, String... user) throws Exception {
    Credentialed.Reply opened = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/sessions", "{}",
        tenant.auth(user));
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    return opened.json().path("session_id").asText();
  }

  private static JsonNode turn(Tenant tenant, String sessionId, String message, String... user) throws Exception {
    Credentialed.Reply answered = Credentialed.send(app.colloquy().baseUrl(), "POST",
        "/v1/sessions/" + sessionId + "/turns", Api.turn(message), tenant.auth(user));
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    return answered.json();
  }

  private static String status(Tenant tenant, String sessionId) throws Exception {
    return Credentialed.send(app.colloquy().baseUrl(), "GET", "/v1/sessions/" + sessionId, null, tenant.auth())
        .json().path("status").asText();
  }

  private static String config(String webhookUrl, String more) {
    return "{\"escalation_webhook_url\": \"" + webhookUrl + "\", \"persona_name\": \"Aria\"" + more + "}";
  }

  @Test
  void aLowConfidenceQuestionEscalatesAndItsSignedWebhookArrivesOnTheThirdAttempt() throws Exception {
    Tenant tenant = tenant(config(receiver.url(), ""));
    String sessionId = open(tenant, "X-User-Id", "customer-42");
    receiver.failNext(sessionId, 2);

    JsonNode answer = turn(tenant, sessionId, "How do I get a refund for a damaged parcel?", "X-User-Id", "customer-42");

    assertThat(answer.path("intent").asText()).isEqualTo("domain_query");
    assertThat(answer.path("escalation").asText()).isEqualTo("low_retrieval_confidence");
    assertThat(answer.path("text").asText()).startsWith("This is Aria. I'm connecting you to a human agent");
    assertThat(status(tenant, sessionId)).isEqualTo("escalated");

    List<WebhookReceiver.Attempt> attempts = receiver.await(
        attempt -> attempt.body().contains(sessionId) && attempt.body().contains("\"event\":\"escalation\""), 3, WAIT);
    assertThat(attempts).extracting(WebhookReceiver.Attempt::answered).containsExactly(500, 500, 200);
    assertThat(attempts).extracting(WebhookReceiver.Attempt::id).containsOnly(attempts.getFirst().id());
    WebhookReceiver.Attempt delivered = attempts.getLast();

    NodeProject verifier = NodeProject.installed("app/src/test/node/standard-webhooks");
    NodeProject.Run verified = verify(verifier, tenant.secret(), delivered, delivered.body());
    assertThat(verified.exitCode()).as(verified.output()).isZero();
    JsonNode body = Api.JSON.readTree(verified.stdout());
    assertThat(body.path("event").asText()).isEqualTo("escalation");
    assertThat(body.path("session_id").asText()).isEqualTo(sessionId);
    assertThat(body.path("tenant_id").asText()).isEqualTo(tenant.tenantId());
    assertThat(body.path("external_user_id").asText()).isEqualTo("customer-42");
    assertThat(body.path("escalation_reason").asText()).isEqualTo("low_retrieval_confidence");
    assertThat(body.path("transcript").findValuesAsText("role")).containsExactly("user", "assistant");
    assertThat(body.path("transcript").get(0).path("content").asText())
        .isEqualTo("How do I get a refund for a damaged parcel?");
    assertThat(body.path("transcript").get(0).path("timestamp").asText()).isNotBlank();
    assertThat(body.path("last_user_message").asText()).isEqualTo("How do I get a refund for a damaged parcel?");
    assertThat(body.path("escalated_at").asText()).isNotBlank();
    NodeProject.Run tampered = verify(verifier, tenant.secret(), delivered,
        delivered.body().replace("customer-42", "customer-43"));
    assertThat(tampered.exitCode()).as("a changed body fails the check: " + tampered.output()).isEqualTo(1);

    assertThat(awaitBilling(tenant, sessionId, "escalation").path("reason").asText())
        .isEqualTo("low_retrieval_confidence");
  }

  @Test
  void whileAHumanHasTheSessionMessagesAreForwardedUntilAnOperatorHandsItBack() throws Exception {
    Tenant tenant = tenant(config(receiver.url(), ""));
    String sessionId = open(tenant, "X-User-Id", "customer-7");
    assertThat(turn(tenant, sessionId, "I want to talk to a human", "X-User-Id", "customer-7")
        .path("escalation").asText()).isEqualTo("user_requested");

    JsonNode forwarded = turn(tenant, sessionId, "Is anyone there?", "X-User-Id", "customer-7");

    assertThat(forwarded.path("text").asText())
        .isEqualTo("Your message has been passed to the human agent handling this conversation.");
    assertThat(forwarded.has("intent")).isFalse();
    WebhookReceiver.Attempt message = receiver.await(attempt -> attempt.accepted() && attempt.body().contains(sessionId)
        && attempt.body().contains("\"event\":\"handoff_message\""), 1, WAIT).getFirst();
    assertThat(Api.JSON.readTree(message.body()).path("message").asText()).isEqualTo("Is anyone there?");

    Credentialed.Reply byTheUser = Credentialed.send(app.colloquy().baseUrl(), "POST",
        "/v1/sessions/" + sessionId + "/handback", null, tenant.auth("X-User-Id", "customer-7"));
    Credentialed.assertForbidden(byTheUser, "the end user handing back");
    assertThat(status(tenant, sessionId)).isEqualTo("escalated");

    Credentialed.Reply handedBack = Credentialed.send(app.colloquy().baseUrl(), "POST",
        "/v1/sessions/" + sessionId + "/handback", null, tenant.auth());
    assertThat(handedBack.status()).as(handedBack.body()).isEqualTo(200);
    assertThat(handedBack.json().path("status").asText()).isEqualTo("open");
    Credentialed.Reply again = Credentialed.send(app.colloquy().baseUrl(), "POST",
        "/v1/sessions/" + sessionId + "/handback", null, tenant.auth());
    assertThat(again.status()).isEqualTo(409);
    Credentialed.assertErrorBody(again, "SESSION_NOT_ESCALATED", "handing back an open session");

    JsonNode answered = turn(tenant, sessionId, "thanks!", "X-User-Id", "customer-7");
    assertThat(answered.path("intent").asText()).isEqualTo("conversational");
    assertThat(answered.path("text").asText()).isEqualTo(app.mock().settings().text(app.mock().settings().tokens()));

    assertThat(turn(tenant, sessionId, "Please get me a human again", "X-User-Id", "customer-7")
        .path("escalation").asText()).isEqualTo("user_requested");
    assertThat(status(tenant, sessionId)).isEqualTo("escalated");
    assertThat(awaitBillings(tenant, sessionId, "escalation", 2)).extracting(record -> record.path("turns").asInt())
        .containsExactly(1, 4);
  }

  @Test
  void theTurnAfterMaxTurnsEscalatesAndTheStreamShowsEveryDecision() throws Exception {
    Tenant tenant = tenant(config(receiver.url(), ", \"max_turns_before_escalation\": 1"));
    String sessionId = open(tenant);
    assertThat(turn(tenant, sessionId, "hello").path("escalation").isMissingNode()).isTrue();

    List<SseEvent> events;
    try (SseClient stream = new Api(app.colloquy().baseUrl(), tenant.key()).streamTurn(sessionId, Api.turn("hi again"))) {
      events = stream.readToEnd(WAIT);
    }

    assertThat(events).extracting(SseEvent::event).startsWith("turn.started", "intent", "escalation", "token");
    assertThat(events.get(1).text("intent")).isEqualTo("conversational");
    assertThat(events.get(2).text("reason")).isEqualTo("max_turns_exceeded");
    assertThat(events).extracting(SseEvent::event).doesNotContain("retrieval");

    JsonNode journal = Credentialed.send(app.colloquy().baseUrl(), "GET", "/v1/sessions/" + sessionId + "/journal",
        null, tenant.auth()).json();
    assertThat(journal.path("events").findValuesAsText("type")).contains("SessionEscalated");
    assertThat(journal.findValues("agent")).extracting(agent -> agent.path("intent").asText())
        .containsExactly("CONVERSATIONAL", "CONVERSATIONAL");
  }

  /** The Support agent dialect (seed 004 §5.3) carries the decision in its own escalation fields. */
  @Test
  void theSupportContractsMessageSaysWhenItsTurnHandedTheSessionToAHuman() throws Exception {
    Tenant tenant = tenant(config(receiver.url(), ""));
    String base = app.colloquy().baseUrl();
    String answeredSession = supportSession(tenant, "customer-50");
    Credentialed.Reply answered = Credentialed.send(base, "POST", "/v1/chat/message",
        "{\"session_id\": \"" + answeredSession + "\", \"message\": \"I want to talk to a human\"}",
        "X-API-Key", tenant.key());
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(answered.json().path("escalation_required").asBoolean()).as(answered.body()).isTrue();
    assertThat(answered.json().path("escalation_reason").asText()).isEqualTo("user_requested");
    assertThat(status(tenant, answeredSession)).isEqualTo("escalated");

    Credentialed.Reply forwarded = Credentialed.send(base, "POST", "/v1/chat/message",
        "{\"session_id\": \"" + answeredSession + "\", \"message\": \"Hello?\"}", "X-API-Key", tenant.key());
    assertThat(forwarded.json().path("escalation_required").asBoolean()).as("already with a human: " + forwarded.body())
        .isFalse();
    assertThat(forwarded.json().path("escalation_reason").isNull()).isTrue();

    String streamedSession = supportSession(tenant, "customer-51");
    List<SseEvent> events;
    try (SseClient stream = SeedStreams.post(base, "/v1/chat/message", "{\"session_id\": \"" + streamedSession
        + "\", \"message\": \"I want to talk to a human\", \"stream\": true}", "X-API-Key", tenant.key())) {
      events = stream.readToEnd(WAIT);
    }
    JsonNode metadata = events.getLast().json().path("metadata");
    assertThat(metadata.path("escalation_required").asBoolean()).as(metadata.toString()).isTrue();
    assertThat(metadata.path("escalation_reason").asText()).isEqualTo("user_requested");
  }

  private static String supportSession(Tenant tenant, String externalUserId) throws Exception {
    Credentialed.Reply started = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/session/start",
        "{\"external_user_id\": \"" + externalUserId + "\"}", "X-API-Key", tenant.key());
    assertThat(started.status()).as(started.body()).isEqualTo(200);
    return started.json().path("session_id").asText();
  }

  @Test
  void anOutOfScopeMessageGetsTheRedirectAndTheReadTablesKeepEachTurnsIntent() throws Exception {
    Tenant tenant = tenant(config(receiver.url(),
        ", \"allowed_topics\": [\"orders\", \"refunds\"], \"company_name\": \"ShopKart\""));
    String sessionId = open(tenant);

    JsonNode redirect = turn(tenant, sessionId, "Tell me a joke about cricket");
    turn(tenant, sessionId, "hello");

    assertThat(redirect.path("intent").asText()).isEqualTo("out_of_scope");
    assertThat(redirect.has("escalation")).isFalse();
    assertThat(redirect.path("text").asText()).isEqualTo(
        "I can only assist with orders, refunds for ShopKart. Is there something I can help you with in those areas?");
    assertThat(status(tenant, sessionId)).isEqualTo("open");
    List<String> rows = awaitRows(sessionId, 4);
    assertThat(rows).containsExactly("user out_of_scope null null false", "assistant out_of_scope null null false",
        "user conversational null null false", "assistant conversational null null false");
  }

  @Test
  void aWebhookThatNeverGetsThroughIsGivenUpAndBilledAsFailed() throws Exception {
    Tenant tenant = tenant(config(receiver.url(), ""));
    String sessionId = open(tenant);
    receiver.failNext(sessionId, 4);

    turn(tenant, sessionId, "Please connect me to a real person");

    assertThat(receiver.await(attempt -> attempt.body().contains(sessionId), 4, WAIT))
        .extracting(WebhookReceiver.Attempt::answered).containsExactly(500, 500, 500, 500);
    assertThat(awaitBilling(tenant, sessionId, "escalation_webhook_failed").path("reason").asText())
        .contains("HTTP 500");
    assertThat(receiver.attempts().stream().filter(attempt -> attempt.body().contains(sessionId))).hasSize(4);
  }

  @Test
  void theEgressGuardRefusesAWebhookToAnAddressTheOperatorDidNotAllow() throws Exception {
    Tenant tenant = tenant(config("http://169.254.169.254/latest/hook", ""));
    String sessionId = open(tenant);

    turn(tenant, sessionId, "Let me speak to an agent");

    assertThat(awaitBilling(tenant, sessionId, "escalation_webhook_failed").path("reason").asText())
        .contains("internal address 169.254.169.254");
  }

  private static NodeProject.Run verify(NodeProject verifier, String secret, WebhookReceiver.Attempt attempt,
      String body) throws Exception {
    return verifier.node("verify.mjs", List.of(), Map.of("WEBHOOK_SECRET", secret, "WEBHOOK_ID", attempt.id(),
        "WEBHOOK_TIMESTAMP", attempt.timestamp(), "WEBHOOK_SIGNATURE", attempt.signature(), "WEBHOOK_BODY", body),
        Duration.ofSeconds(30));
  }

  /** The tenant's billing record of {@code kind} for the session, once the read side has it. */
  private static JsonNode awaitBilling(Tenant tenant, String sessionId, String kind) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      for (JsonNode record : Credentialed.send(app.colloquy().baseUrl(), "GET", "/v1/billing", null, tenant.auth())
          .json().path("records")) {
        if (record.path("session_id").asText().equals(sessionId) && record.path("kind").asText().equals(kind)) {
          return record;
        }
      }
      assertThat(System.nanoTime()).as("a " + kind + " record of " + sessionId).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  /** The tenant's {@code count} billing records of {@code kind} for the session, oldest first, once the read side has them. */
  private static List<JsonNode> awaitBillings(Tenant tenant, String sessionId, String kind, int count) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      List<JsonNode> found = new ArrayList<>();
      for (JsonNode record : Credentialed.send(app.colloquy().baseUrl(), "GET", "/v1/billing", null, tenant.auth())
          .json().path("records")) {
        if (record.path("session_id").asText().equals(sessionId) && record.path("kind").asText().equals(kind)) {
          found.add(record);
        }
      }
      if (found.size() >= count) {
        return found;
      }
      assertThat(System.nanoTime()).as(count + " " + kind + " records of " + sessionId).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  /** "role intent confidence chunks escalated" of each of the session's message rows, once there are {@code count}. */
  private static List<String> awaitRows(String sessionId, int count) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      List<String> rows = new ArrayList<>();
      try (Connection connection = app.colloquy().database().dataSource().getConnection();
          PreparedStatement query = connection.prepareStatement("""
              SELECT role, intent_type, confidence_score, source_chunks, escalation_flag FROM messages
              WHERE session_id = ? ORDER BY created_at, role DESC""")) {
        query.setString(1, sessionId);
        try (ResultSet rs = query.executeQuery()) {
          while (rs.next()) {
            rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getObject(3) + " " + rs.getString(4) + " "
                + rs.getBoolean(5));
          }
        }
      }
      if (rows.size() >= count && rows.stream().noneMatch(row -> row.contains(" null null null "))) {
        return rows;
      }
      assertThat(System.nanoTime()).as(count + " message rows of " + sessionId).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
