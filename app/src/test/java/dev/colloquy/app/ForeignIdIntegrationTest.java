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
  private static String memoryId;
  private static final String FIRST_USER = "first-tenant-user";
  private static final String FIRST_USERS_EMAIL = "first-secret@example.com";
  private static final String FIRST_USERS_PLAN = "first-tenant-plan";

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

    Api.Response opened = first.send("POST", "/v1/sessions", "{}", "X-User-Id", FIRST_USER);
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    Api.Response told = first.send("POST", "/v1/sessions/" + opened.json().path("session_id").asText() + "/turns",
        Api.turn("My email is " + FIRST_USERS_EMAIL + "."), "X-User-Id", FIRST_USER);
    assertThat(told.status()).as(told.body()).isEqualTo(200);
    memoryId = awaitFirstMemory();
    Api.Response context = first.send("PUT", "/v1/users/" + FIRST_USER + "/context", "{\"plan\": \"" + FIRST_USERS_PLAN + "\"}");
    assertThat(context.status()).as(context.body()).isEqualTo(200);
  }

  /** Facts are extracted after the turn has answered. */
  private static String awaitFirstMemory() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      Api.Response listed = first.get("/v1/users/" + FIRST_USER + "/memories");
      if (listed.status() == 200 && listed.json().path("memories").size() > 0) {
        return listed.json().path("memories").get(0).path("memory_id").asText();
      }
      assertThat(System.nanoTime()).as("a memory of the first tenant's user: " + listed.body()).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  /** The ids one probe puts into its path: the first tenant's, or fresh ones nobody has. */
  private record Ids(String session, String turn, String document, String user, String memory) {
    static Ids fresh() {
      return new Ids(UUID.randomUUID().toString(), UUID.randomUUID().toString(), UUID.randomUUID().toString(),
          "user-" + UUID.randomUUID(), UUID.randomUUID().toString());
    }

    String fill(String template) {
      return template.replace("{session}", session).replace("{turn}", turn).replace("{document}", document)
          .replace("{user}", user).replace("{memory}", memory).replace("{chunk}", "0");
    }

    /** A body may echo the ids the caller sent; those are the caller's words, not a leak. */
    String anonymous(String body) {
      return body.replace(session, "{session}").replace(turn, "{turn}").replace(document, "{document}")
          .replace(user, "{user}").replace(memory, "{memory}");
    }
  }

  /** One request, with the first tenant's ids or fresh ones in its path. */
  private record Probe(String method, String pathTemplate, String body, String... headers) {
    Api.Response send(Api api, Ids ids) throws Exception {
      return api.send(method, ids.fill(pathTemplate), body, headers);
    }

    /** Method and path as the OpenAPI document writes them. */
    String route() {
      return method + " " + pathTemplate.replace("{session}", "{session_id}").replace("{turn}", "{turn_id}")
          .replace("{document}", "{document_id}").replace("{user}", "{user_id}").replace("{memory}", "{memory_id}")
          .replace("{chunk}", "{chunk_index}");
    }
  }

  private static List<Probe> probes() {
    List<Probe> probes = new ArrayList<>();
    probes.add(new Probe("GET", "/v1/sessions/{session}", null));
    probes.add(new Probe("PATCH", "/v1/sessions/{session}", "{\"title\": \"taken over\"}"));
    probes.add(new Probe("GET", "/v1/sessions/{session}/journal", null));
    probes.add(new Probe("GET", "/v1/sessions/{session}/export", null));
    probes.add(new Probe("POST", "/v1/sessions/{session}/fork", "{\"at_turn\": 1}"));
    probes.add(new Probe("POST", "/v1/sessions/{session}/turns", Api.turn("hello from elsewhere")));
    probes.add(new Probe("POST", "/v1/sessions/{session}/turns", Api.turn("hello from elsewhere"),
        "Accept", "text/event-stream"));
    probes.add(new Probe("GET", "/v1/sessions/{session}/turns/{turn}/events", null, "Accept", "text/event-stream"));
    probes.add(new Probe("POST", "/v1/sessions/{session}/turns/{turn}/cancel", ""));
    probes.add(new Probe("POST", "/v1/sessions/{session}/handback", "{}"));
    probes.add(new Probe("POST", "/v1/sessions/{session}/close", "{}"));
    probes.add(new Probe("DELETE", "/v1/sessions/{session}", null));
    probes.add(new Probe("GET", "/v1/knowledge/{document}/status", null));
    probes.add(new Probe("GET", "/v1/knowledge/{document}/chunks/{chunk}", null));
    probes.add(new Probe("DELETE", "/v1/knowledge/{document}", null));
    probes.add(new Probe("GET", "/v1/users/{user}/memories", null));
    probes.add(new Probe("DELETE", "/v1/users/{user}/memories/{memory}", null));
    probes.add(new Probe("DELETE", "/v1/users/{user}/memories", null));
    probes.add(new Probe("GET", "/v1/users/{user}/context", null));
    probes.add(new Probe("PUT", "/v1/users/{user}/context", "{\"plan\": \"second's plan\"}"));
    return probes;
  }

  /**
   * Routes with an id in their path that the probes above leave to other tests: the admin API takes
   * only the admin token (a tenant's key is refused before any id is read: TenantAdminIntegrationTest),
   * and each seed dialect answers a foreign id the way its seed does, in its own test.
   */
  private static final Map<String, String> ELSEWHERE = Map.of(
      "/v1/admin/", "TenantAdminIntegrationTest",
      "/chats/", "WritingRoomIntegrationTest",
      "/v1/session/", "SupportAgentIntegrationTest",
      "/v1/conversations/", "FanOutDialectIntegrationTest",
      "/v1/turns/", "FanOutDialectIntegrationTest");

  @Test
  void theMatrixCoversEveryRouteOfTheOpenApiDocumentThatTakesAnId() throws Exception {
    JsonNode paths = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
        .readTree(app.api().get("/openapi.yaml").body()).path("paths");
    List<String> probed = probes().stream().map(Probe::route).toList();
    List<String> missing = new ArrayList<>();
    paths.properties().forEach(path -> {
      boolean elsewhere = ELSEWHERE.keySet().stream().anyMatch(path.getKey()::startsWith);
      if (path.getKey().contains("{") && !elsewhere) {
        path.getValue().properties().stream().map(Map.Entry::getKey)
            .filter(method -> List.of("get", "put", "post", "patch", "delete").contains(method))
            .map(method -> method.toUpperCase(java.util.Locale.ROOT) + " " + path.getKey())
            .filter(route -> !probed.contains(route))
            .forEach(missing::add);
      }
    });
    assertThat(missing).as("routes with an id that no probe tries with another tenant's credential").isEmpty();
  }

  @Test
  void everyRouteAnswersAForeignIdExactlyAsAMissingOne() throws Exception {
    for (Probe probe : probes()) {
      String what = probe.method() + " " + probe.pathTemplate() + " " + String.join(" ", probe.headers());
      Ids fresh = Ids.fresh();
      Ids firsts = new Ids(sessionId, turnId, documentId, FIRST_USER, memoryId);
      Api.Response missing = probe.send(second, fresh);
      Api.Response foreign = probe.send(second, firsts);

      assertThat(foreign.status()).as(what + ": " + foreign.body()).isEqualTo(missing.status());
      assertThat(foreign.contentType()).as(what).isEqualTo(missing.contentType());
      assertThat(firsts.anonymous(foreign.withoutTraceId())).as(what).isEqualTo(fresh.anonymous(missing.withoutTraceId()));
      assertThat(firsts.anonymous(foreign.body())).as(what).doesNotContain(SECRET_MESSAGE, "default", "first-tenant",
          FIRST_USERS_EMAIL, FIRST_USERS_PLAN);
    }
  }

  @Test
  void theFirstTenantsObjectsAreUntouched() throws Exception {
    Ids firsts = new Ids(sessionId, turnId, documentId, FIRST_USER, memoryId);
    for (Probe probe : probes()) {
      probe.send(second, firsts);
    }
    JsonNode session = first.session(sessionId);
    assertThat(session.path("status").asText()).isEqualTo("open");
    assertThat(session.path("messages").toString()).contains(SECRET_MESSAGE).doesNotContain("hello from elsewhere");
    assertThat(first.get("/v1/sessions/" + sessionId + "/journal").status()).isEqualTo(200);
    assertThat(first.get("/v1/knowledge/" + documentId + "/status").status()).isEqualTo(200);
    assertThat(first.get("/v1/knowledge/" + documentId + "/chunks/0").json().path("text").asText())
        .contains("Refunds within 30 days.");
    assertThat(first.get("/v1/users/" + FIRST_USER + "/memories").body()).contains(memoryId, FIRST_USERS_EMAIL);
    assertThat(first.get("/v1/users/" + FIRST_USER + "/context").json().path("plan").asText()).isEqualTo(FIRST_USERS_PLAN);
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
