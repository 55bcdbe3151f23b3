package dev.colloquy.app;

import static dev.colloquy.app.Credentialed.assertUnauthenticated;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A key revoked through one node is refused by the other within 5 s, even though the other node has
 * just accepted it and holds it in its key cache.
 */
class TwoNodeKeyRevocationIntegrationTest {

  private static final String ADMIN_TOKEN = "admin-token-for-two-node-revocation";
  private static final Duration REVOCATION_DEADLINE = Duration.ofSeconds(5);

  @RegisterExtension
  static final RunningCluster cluster =
      RunningCluster.of2(TestColloquy.fastMock(), Map.of("colloquy.admin.token", ADMIN_TOKEN));

  private static Credentialed.Reply admin(String method, String path, String body) throws Exception {
    return Credentialed.send(cluster.node(0).baseUrl(), method, path, body, "Authorization", "Bearer " + ADMIN_TOKEN);
  }

  private static Credentialed.Reply sessionsOnSecondNode(String key) throws Exception {
    return Credentialed.bearer(cluster.node(1).baseUrl(), "/v1/sessions", key);
  }

  @Test
  void aKeyRevokedThroughOneNodeIsRefusedByTheOtherWithinFiveSeconds() throws Exception {
    Credentialed.Reply tenant = admin("POST", "/v1/admin/tenants",
        "{\"name\": \"revoked-" + UUID.randomUUID().toString().substring(0, 8) + "\"}");
    assertThat(tenant.status()).as(tenant.body()).isEqualTo(201);
    String tenantId = tenant.json().path("tenant_id").asText();
    Credentialed.Reply issued = admin("POST", "/v1/admin/tenants/" + tenantId + "/keys", null);
    assertThat(issued.status()).as(issued.body()).isEqualTo(201);
    JsonNode key = issued.json();
    String apiKey = key.path("api_key").asText();

    Credentialed.Reply before = sessionsOnSecondNode(apiKey);
    assertThat(before.status()).as("the new key on the second node: " + before.body()).isEqualTo(200);

    Credentialed.Reply revoked = admin("DELETE", "/v1/admin/keys/" + key.path("key_id").asText(), null);
    assertThat(revoked.status()).as(revoked.body()).isEqualTo(204);
    long revokedAt = System.nanoTime();
    long deadline = revokedAt + REVOCATION_DEADLINE.toNanos();
    Credentialed.Reply reply = sessionsOnSecondNode(apiKey);
    while (reply.status() == 200 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      reply = sessionsOnSecondNode(apiKey);
    }
    Duration refusedAfter = Duration.ofNanos(System.nanoTime() - revokedAt);

    assertUnauthenticated(reply, "the revoked key on the second node");
    assertThat(refusedAfter).as("from the revocation to the second node's refusal").isLessThanOrEqualTo(REVOCATION_DEADLINE);
    Credentialed.Reply otherKey = sessionsOnSecondNode(tenant.json().path("api_key").asText());
    assertThat(otherKey.status()).as("the tenant's other key on the second node: " + otherKey.body()).isEqualTo(200);
  }
}
