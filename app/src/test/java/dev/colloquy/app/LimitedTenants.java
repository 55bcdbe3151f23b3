package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.persistence.tenant.TenantStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/** Tenants of their own for the limit tests, so that one test's buckets and sessions never count in another's. */
final class LimitedTenants {

  private LimitedTenants() {}

  /** A new tenant's key, with {@code config} (a JSON object) PUT as its configuration through {@code node}. */
  static String keyOfNewTenant(Colloquy node, String config) throws Exception {
    String apiKey = new TenantStore(node.database().dataSource()).create("limits-" + UUID.randomUUID()).key().apiKey();
    Credentialed.Reply configured =
        Credentialed.send(node.baseUrl(), "PUT", "/v1/config", config, "Authorization", "Bearer " + apiKey);
    assertThat(configured.status()).as(configured.body()).isEqualTo(200);
    return apiKey;
  }

  static Credentialed.Reply startTurn(Colloquy node, String apiKey, String sessionId, String message) throws Exception {
    return Credentialed.send(node.baseUrl(), "POST", "/v1/sessions/" + sessionId + "/turns", Api.turn(message),
        "Authorization", "Bearer " + apiKey);
  }

  static String openSession(Colloquy node, String apiKey) throws Exception {
    Credentialed.Reply opened = Credentialed.send(node.baseUrl(), "POST", "/v1/sessions", "{}",
        "Authorization", "Bearer " + apiKey);
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    return opened.json().path("session_id").asText();
  }

  /** The session list is a read side that may lag its sessions by a moment; the session quota reads it too. */
  static void awaitOpenListed(Colloquy node, String apiKey, int open) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (Credentialed.send(node.baseUrl(), "GET", "/v1/sessions?status=open", null, "Authorization",
        "Bearer " + apiKey).json().path("sessions").size() < open) {
      assertThat(System.nanoTime()).as(open + " open sessions listed").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  /** 429 with the error body and a whole number of seconds, at least one, in {@code Retry-After}. */
  static void assertTooMany(Credentialed.Reply reply, String code, String what) {
    assertThat(reply.status()).as(what + ": " + reply.body()).isEqualTo(429);
    Credentialed.assertErrorBody(reply, code, what);
    assertThat(reply.headers().allValues("Retry-After")).as(what).singleElement()
        .satisfies(seconds -> assertThat(Long.parseLong(seconds)).isPositive());
  }
}
