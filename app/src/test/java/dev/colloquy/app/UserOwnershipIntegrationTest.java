package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * A session belongs to (tenant, user): a second user of the same tenant, by JWT or by the tenant key
 * with another {@code X-User-Id}, gets exactly the missing answer for the first user's session and
 * does not see it listed; the tenant key without a user reaches and lists every session.
 */
class UserOwnershipIntegrationTest {

  private static final String SECRET = "user-ownership-test-jwt-secret-0123456789";
  private static final String AUDIENCE = "authenticated";
  private static final String ISSUER = "https://issuer.test/auth/v1";
  /** The development tenant, named as a JWT claim may name it. */
  private static final String TENANT = "dev";
  private static final String SECRET_MESSAGE = "alice's private question";

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.auth.jwt.secret", SECRET,
      "colloquy.auth.jwt.issuer", ISSUER));

  /** A user of the tenant as one credential presents it: the headers every request carries. */
  private record Caller(String name, String... headers) {
    Api.Response send(String method, String path, String body, String... more) throws Exception {
      String[] all = new String[headers.length + more.length];
      System.arraycopy(headers, 0, all, 0, headers.length);
      System.arraycopy(more, 0, all, headers.length, more.length);
      return app.api().send(method, path, body, all);
    }
  }

  private static Caller byKey(String userId) {
    return new Caller("key + X-User-Id " + userId, "X-User-Id", userId);
  }

  private static Caller byJwt(String userId) {
    ObjectNode claims = SignedTokens.claims(AUDIENCE, ISSUER, TENANT).put("sub", userId);
    String token = SignedTokens.hs256(SignedTokens.header("HS256"), claims, SECRET.getBytes(StandardCharsets.UTF_8));
    return new Caller("JWT of " + userId, "Authorization", "Bearer " + token);
  }

  private static final Caller TENANT_KEY = new Caller("tenant key");

  private static String alicesSession;
  private static String alicesTurn;

  @BeforeAll
  static void aliceHasASessionWithATurn() throws Exception {
    Api.Response opened = byKey("alice").send("POST", "/v1/sessions", "{}");
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    alicesSession = opened.json().path("session_id").asText();
    Api.Response turn = byKey("alice").send("POST", "/v1/sessions/" + alicesSession + "/turns", Api.turn(SECRET_MESSAGE));
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    alicesTurn = turn.json().path("turn_id").asText();
  }

  /** One request on a session and a turn of it. */
  private record Probe(String method, String pathTemplate, String body, String... headers) {
    Api.Response send(Caller caller, String session, String turn) throws Exception {
      return caller.send(method, pathTemplate.replace("{session}", session).replace("{turn}", turn), body, headers);
    }
  }

  private static List<Probe> probes() {
    return List.of(
        new Probe("GET", "/v1/sessions/{session}", null),
        new Probe("GET", "/v1/sessions/{session}/journal", null),
        new Probe("POST", "/v1/sessions/{session}/turns", Api.turn("hello from bob")),
        new Probe("GET", "/v1/sessions/{session}/turns/{turn}/events", null, "Accept", "text/event-stream"),
        new Probe("POST", "/v1/sessions/{session}/turns/{turn}/cancel", ""),
        new Probe("POST", "/v1/sessions/{session}/close", "{}"),
        new Probe("DELETE", "/v1/sessions/{session}", null));
  }

  @Test
  void anotherUserOfTheTenantGetsTheMissingAnswerOnEveryRoute() throws Exception {
    for (Caller bob : List.of(byJwt("bob"), byKey("bob"))) {
      for (Probe probe : probes()) {
        String what = bob.name() + ": " + probe.method() + " " + probe.pathTemplate();
        Api.Response missing = probe.send(bob, UUID.randomUUID().toString(), UUID.randomUUID().toString());
        Api.Response foreign = probe.send(bob, alicesSession, alicesTurn);

        assertThat(foreign.status()).as(what + ": " + foreign.body()).isEqualTo(missing.status()).isBetween(400, 499);
        assertThat(foreign.contentType()).as(what).isEqualTo(missing.contentType());
        assertThat(foreign.withoutTraceId()).as(what).isEqualTo(missing.withoutTraceId());
        assertThat(foreign.body()).as(what).doesNotContain(alicesSession, alicesTurn, SECRET_MESSAGE, "alice");
      }
    }
    JsonNode session = byKey("alice").send("GET", "/v1/sessions/" + alicesSession, null).json();
    assertThat(session.path("status").asText()).isEqualTo("open");
    assertThat(session.path("messages").toString()).contains(SECRET_MESSAGE).doesNotContain("hello from bob");
  }

  @Test
  void theSameUserReachesItsSessionByKeyAndByJwt() throws Exception {
    for (Caller alice : List.of(byKey("alice"), byJwt("alice"))) {
      assertThat(alice.send("GET", "/v1/sessions/" + alicesSession, null).status()).as(alice.name()).isEqualTo(200);
      assertThat(alice.send("GET", "/v1/sessions/" + alicesSession + "/journal", null).status()).as(alice.name())
          .isEqualTo(200);
    }
  }

  @Test
  void theTenantKeyWithoutAUserReachesEverySessionButAUserNotTheTenantWideOnes() throws Exception {
    assertThat(TENANT_KEY.send("GET", "/v1/sessions/" + alicesSession, null).status()).isEqualTo(200);
    assertThat(TENANT_KEY.send("GET", "/v1/sessions/" + alicesSession + "/journal", null).status()).isEqualTo(200);

    Api.Response opened = TENANT_KEY.send("POST", "/v1/sessions", "{}");
    String tenantWide = opened.json().path("session_id").asText();
    for (Caller alice : List.of(byKey("alice"), byJwt("alice"))) {
      assertThat(alice.send("GET", "/v1/sessions/" + tenantWide, null).status()).as(alice.name()).isEqualTo(404);
    }
  }

  @Test
  void eachUserListsOnlyItsOwnSessionsAndTheTenantKeyListsThemAll() throws Exception {
    Api.Response opened = byJwt("bob").send("POST", "/v1/sessions", "{}");
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    String bobsSession = opened.json().path("session_id").asText();
    awaitListed(TENANT_KEY, alicesSession);
    awaitListed(TENANT_KEY, bobsSession);

    assertThat(sessionIds(TENANT_KEY)).contains(alicesSession, bobsSession);
    for (Caller bob : List.of(byJwt("bob"), byKey("bob"))) {
      assertThat(sessionIds(bob)).as(bob.name()).contains(bobsSession).doesNotContain(alicesSession);
    }
    for (Caller alice : List.of(byJwt("alice"), byKey("alice"))) {
      assertThat(sessionIds(alice)).as(alice.name()).contains(alicesSession).doesNotContain(bobsSession);
    }
  }

  private static List<String> sessionIds(Caller caller) throws Exception {
    Api.Response list = caller.send("GET", "/v1/sessions?limit=100", null);
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    list.json().path("sessions").forEach(session -> ids.add(session.path("session_id").asText()));
    return ids;
  }

  /** The list is a read side that may lag its sessions by a moment. */
  private static void awaitListed(Caller caller, String session) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!sessionIds(caller).contains(session)) {
      assertThat(System.nanoTime()).as("session " + session + " listed").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
