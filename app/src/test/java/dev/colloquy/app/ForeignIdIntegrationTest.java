package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With a second tenant's key, every id of the first tenant answers exactly as a missing id: same
 * status, same code, and a body that names nothing of the first tenant. Nothing the second tenant
 * tries changes the first tenant's objects.
 */
class ForeignIdIntegrationTest {

  private static final String ADMIN_TOKEN = "admin-token-for-foreign-id-tests";
  private static final String SECRET_MESSAGE = "the first tenant's secret message";

  @RegisterExtension
  static final RunningColloquy app =
      RunningColloquy.with(TestColloquy.fastMock(), Map.of("colloquy.admin.token", ADMIN_TOKEN));

  private static Api first;
  private static Api second;
  private static String sessionId;
  private static String turnId;
  private static String documentId;

  @BeforeAll
  static void twoTenants() throws Exception {
    first = app.api();
    Credentialed.Reply created = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/admin/tenants",
        "{\"name\": \"second\"}", "Authorization", "Bearer " + ADMIN_TOKEN);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    second = first.withKey(created.json().path("api_key").asText());

    sessionId = first.openSession();
    Api.Response turn = first.post("/v1/sessions/" + sessionId + "/turns", Api.turn(SECRET_MESSAGE));
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    turnId = turn.json().path("turn_id").asText();
    assertThat(turnId).isNotBlank();
    documentId = first.ingest("first-tenant-policies.md",
        "# Policies\n\nRefunds within 30 days.\n".getBytes(StandardCharsets.UTF_8)).path("document_id").asText();
  }

  /** One request, with the id of the first tenant's object or a fresh one in its place. */
  private record Probe(String method, String pathTemplate, String body, String... headers) {
    Api.Response send(Api api, String session, String turn, String document) throws Exception {
      String path = pathTemplate.replace("{session}", session).replace("{turn}", turn).replace("{document}", document);
      return api.send(method, path, body, headers);
    }
  }

  private static List<Probe> probes() {
    List<Probe> probes = new ArrayList<>();
    probes.add(new Probe("GET", "/v1/sessions/{session}", null));
    probes.add(new Probe("GET", "/v1/sessions/{session}/journal", null));
    probes.add(new Probe("POST", "/v1/sessions/{session}/turns", Api.turn("hello from elsewhere")));
    probes.add(new Probe("POST", "/v1/sessions/{session}/turns", Api.turn("hello from elsewhere"),
        "Accept", "text/event-stream"));
    probes.add(new Probe("GET", "/v1/sessions/{session}/turns/{turn}/events", null, "Accept", "text/event-stream"));
    probes.add(new Probe("POST", "/v1/sessions/{session}/turns/{turn}/cancel", ""));
    probes.add(new Probe("POST", "/v1/sessions/{session}/close", "{}"));
    probes.add(new Probe("DELETE", "/v1/sessions/{session}", null));
    probes.add(new Probe("GET", "/v1/knowledge/{document}/status", null));
    probes.add(new Probe("DELETE", "/v1/knowledge/{document}", null));
    return probes;
  }

  @Test
  void everyRouteAnswersAForeignIdExactlyAsAMissingOne() throws Exception {
    for (Probe probe : probes()) {
      String what = probe.method() + " " + probe.pathTemplate() + " " + String.join(" ", probe.headers());
      Api.Response missing = probe.send(second, UUID.randomUUID().toString(), UUID.randomUUID().toString(),
          UUID.randomUUID().toString());
      Api.Response foreign = probe.send(second, sessionId, turnId, documentId);

      assertThat(foreign.status()).as(what + ": " + foreign.body()).isEqualTo(missing.status()).isBetween(400, 499);
      assertThat(foreign.contentType()).as(what).isEqualTo(missing.contentType());
      assertThat(foreign.withoutTraceId()).as(what).isEqualTo(missing.withoutTraceId());
      assertThat(foreign.body()).as(what).doesNotContain(sessionId, turnId, documentId, SECRET_MESSAGE, "default",
          "first-tenant");
    }
  }

  @Test
  void theFirstTenantsObjectsAreUntouched() throws Exception {
    for (Probe probe : probes()) {
      probe.send(second, sessionId, turnId, documentId);
    }
    JsonNode session = first.session(sessionId);
    assertThat(session.path("status").asText()).isEqualTo("open");
    assertThat(session.path("messages").toString()).contains(SECRET_MESSAGE).doesNotContain("hello from elsewhere");
    assertThat(first.get("/v1/sessions/" + sessionId + "/journal").status()).isEqualTo(200);
    assertThat(first.get("/v1/knowledge/" + documentId + "/status").status()).isEqualTo(200);
  }

  @Test
  void eachTenantListsOnlyItsOwnSessionsAndDocuments() throws Exception {
    String secondsSession = second.openSession();
    awaitListed(first, sessionId);
    awaitListed(second, secondsSession);

    assertThat(sessionIds(first)).contains(sessionId).doesNotContain(secondsSession);
    assertThat(sessionIds(second)).contains(secondsSession).doesNotContain(sessionId);
    assertThat(first.get("/v1/knowledge/list").body()).contains(documentId);
    Api.Response documents = second.get("/v1/knowledge/list");
    assertThat(documents.status()).isEqualTo(200);
    assertThat(documents.body()).doesNotContain(documentId, "first-tenant");
  }

  /** Billing and configuration name no id: each tenant reads its own, whatever the other did. */
  @Test
  void eachTenantBillsAndConfiguresOnlyItself() throws Exception {
    String secondsSession = second.openSession();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!first.get("/v1/billing?format=json").body().contains(sessionId)
        || !second.get("/v1/billing?format=json").body().contains(secondsSession)) {
      assertThat(System.nanoTime()).as("both sessions' starts billed").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    assertThat(first.get("/v1/billing?format=json").body()).doesNotContain(secondsSession);
    assertThat(second.get("/v1/billing?format=json").body()).doesNotContain(sessionId, "default");
    assertThat(second.get("/v1/billing?format=csv").body()).doesNotContain(sessionId, "default");

    Api.Response changed = second.send("PUT", "/v1/config", "{\"persona_name\": \"Second's persona\"}");
    assertThat(changed.status()).as(changed.body()).isEqualTo(200);
    assertThat(first.get("/v1/config").body()).doesNotContain("Second's persona");
    assertThat(second.get("/v1/config").json().path("persona_name").asText()).isEqualTo("Second's persona");
  }

  private static List<String> sessionIds(Api api) throws Exception {
    Api.Response list = api.get("/v1/sessions?limit=100");
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    list.json().path("sessions").forEach(session -> ids.add(session.path("session_id").asText()));
    return ids;
  }

  /** The list is a read side that may lag its sessions by a moment. */
  private static void awaitListed(Api api, String session) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!sessionIds(api).contains(session)) {
      assertThat(System.nanoTime()).as("session " + session + " listed").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
