package dev.colloquy.app;

import static dev.colloquy.app.Credentialed.assertErrorBody;
import static dev.colloquy.app.Credentialed.assertForbidden;
import static dev.colloquy.app.Credentialed.assertUnauthenticated;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The operator's API: tenants and keys behind the admin token, and nothing else behind it. */
class TenantAdminIntegrationTest {

  private static final String ADMIN_TOKEN = "admin-token-for-tenant-admin-tests";

  @RegisterExtension
  static final RunningColloquy app =
      RunningColloquy.with(TestColloquy.fastMock(), Map.of("colloquy.admin.token", ADMIN_TOKEN));

  private static Credentialed.Reply admin(String method, String path, String body) throws Exception {
    return Credentialed.send(app.colloquy().baseUrl(), method, path, body, "Authorization", "Bearer " + ADMIN_TOKEN);
  }

  private static Credentialed.Reply withKey(String key, String method, String path, String body) throws Exception {
    return Credentialed.send(app.colloquy().baseUrl(), method, path, body, "Authorization", "Bearer " + key);
  }

  private static JsonNode createTenant(String name) throws Exception {
    Credentialed.Reply created = admin("POST", "/v1/admin/tenants", "{\"name\": \"" + name + "\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json();
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void aCreatedTenantsKeyWorksAtOnceAndTheTenantIsListed() throws Exception {
    String name = unique("acme");
    JsonNode created = createTenant(name);
    assertThat(created.path("tenant_id").asText()).isNotBlank();
    assertThat(created.path("name").asText()).isEqualTo(name);
    assertThat(created.path("api_key").asText()).startsWith("ck_");

    Credentialed.Reply opened = withKey(created.path("api_key").asText(), "POST", "/v1/sessions", "{}");
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);

    Credentialed.Reply list = admin("GET", "/v1/admin/tenants", null);
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    List<String> names = new ArrayList<>();
    list.json().path("tenants").forEach(tenant -> names.add(tenant.path("name").asText()));
    assertThat(names).contains(name, "dev");
    assertThat(list.body()).doesNotContain("ck_");
  }

  @Test
  void anotherKeyWorksAndARevokedOneIsRefused() throws Exception {
    JsonNode tenant = createTenant(unique("keys"));
    String tenantId = tenant.path("tenant_id").asText();
    Credentialed.Reply issued = admin("POST", "/v1/admin/tenants/" + tenantId + "/keys", null);
    assertThat(issued.status()).as(issued.body()).isEqualTo(201);
    assertThat(issued.json().path("tenant_id").asText()).isEqualTo(tenantId);
    String second = issued.json().path("api_key").asText();
    assertThat(second).isNotEqualTo(tenant.path("api_key").asText());
    assertThat(withKey(second, "GET", "/v1/sessions", null).status()).isEqualTo(200);

    Credentialed.Reply revoked = admin("DELETE", "/v1/admin/keys/" + issued.json().path("key_id").asText(), null);
    assertThat(revoked.status()).as(revoked.body()).isEqualTo(204);
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    Credentialed.Reply reply = withKey(second, "GET", "/v1/sessions", null);
    while (reply.status() == 200 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      reply = withKey(second, "GET", "/v1/sessions", null);
    }
    assertUnauthenticated(reply, "the revoked key");
    assertThat(withKey(tenant.path("api_key").asText(), "GET", "/v1/sessions", null).status())
        .as("the tenant's first key").isEqualTo(200);

    Credentialed.Reply again = admin("DELETE", "/v1/admin/keys/" + issued.json().path("key_id").asText(), null);
    assertThat(again.status()).isEqualTo(404);
    assertErrorBody(again, "KEY_NOT_FOUND", "revoked twice");
    Credentialed.Reply unknownTenant = admin("POST", "/v1/admin/tenants/" + UUID.randomUUID() + "/keys", null);
    assertThat(unknownTenant.status()).isEqualTo(404);
    assertErrorBody(unknownTenant, "TENANT_NOT_FOUND", "a key for no tenant");
    String twice = unique("twice");
    Credentialed.Reply duplicate = admin("POST", "/v1/admin/tenants", "{\"name\": \"" + twice + "\", \"name\": \"x\"}");
    assertThat(duplicate.status()).isEqualTo(400);
    assertErrorBody(duplicate, "DUPLICATE_JSON_KEY", "a name given twice");
    assertThat(admin("GET", "/v1/admin/tenants", null).body()).doesNotContain(twice);
  }

  @Test
  void theAdminApiNeedsTheAdminToken() throws Exception {
    String base = app.colloquy().baseUrl();
    assertUnauthenticated(Credentialed.get(base, "/v1/admin/tenants"), "no credential");
    assertUnauthenticated(Credentialed.send(base, "POST", "/v1/admin/tenants", "{\"name\": \"x\"}"), "no credential");
    assertUnauthenticated(Credentialed.get(base, "/v1/admin/tenants", "Authorization", "Bearer " + ADMIN_TOKEN + "x"),
        "a wrong admin token");
    String tenantKey = app.api().apiKey();
    assertForbidden(withKey(tenantKey, "GET", "/v1/admin/tenants", null), "a tenant key listing tenants");
    assertForbidden(withKey(tenantKey, "POST", "/v1/admin/tenants", "{\"name\": \"" + unique("sneaky") + "\"}"),
        "a tenant key creating a tenant");
    assertForbidden(withKey(tenantKey, "POST", "/v1/admin/tenants/default/keys", null), "a tenant key issuing a key");
    String keyId = tenantKey.substring(3, tenantKey.lastIndexOf('_'));
    assertForbidden(withKey(tenantKey, "DELETE", "/v1/admin/keys/" + keyId, null), "a tenant key revoking a key");
  }

  @Test
  void theAdminTokenOpensNoTenantRoute() throws Exception {
    assertForbidden(admin("GET", "/v1/sessions", null), "admin token listing sessions");
    assertForbidden(admin("POST", "/v1/sessions", "{}"), "admin token opening a session");
    assertForbidden(admin("GET", "/v1/knowledge/list", null), "admin token listing documents");
  }

  @Test
  void theAdminTokenReadsAnyTenantsJournalAndNothingElseOfIt() throws Exception {
    JsonNode tenant = createTenant(unique("journaled"));
    String key = tenant.path("api_key").asText();
    Credentialed.Reply opened = withKey(key, "POST", "/v1/sessions", "{}");
    String sessionId = opened.json().path("session_id").asText();

    Credentialed.Reply journal = admin("GET", "/v1/sessions/" + sessionId + "/journal", null);
    assertThat(journal.status()).as(journal.body()).isEqualTo(200);
    assertThat(journal.json().at("/events/0/type").asText()).isEqualTo("SessionOpened");
    assertThat(journal.json().at("/events/0/event/tenant_id").asText()).isEqualTo(tenant.path("tenant_id").asText());
    Credentialed.Reply upTo = admin("GET", "/v1/sessions/" + sessionId + "/journal?until=1", null);
    assertThat(upTo.json().path("events").size()).isEqualTo(1);

    Credentialed.Reply missing = admin("GET", "/v1/sessions/" + UUID.randomUUID() + "/journal", null);
    assertThat(missing.status()).isEqualTo(404);
    assertErrorBody(missing, "SESSION_NOT_FOUND", "the journal of no session");
    assertForbidden(admin("GET", "/v1/sessions/" + sessionId, null), "admin token reading the session itself");
    assertForbidden(admin("DELETE", "/v1/sessions/" + sessionId, null), "admin token deleting the session");
    assertThat(withKey(key, "GET", "/v1/sessions/" + sessionId, null).status()).as("the session is untouched")
        .isEqualTo(200);
  }

  @Test
  void aDuplicateNameIs409() throws Exception {
    String name = unique("twice");
    createTenant(name);
    Credentialed.Reply duplicate = admin("POST", "/v1/admin/tenants", "{\"name\": \"" + name + "\"}");
    assertThat(duplicate.status()).as(duplicate.body()).isEqualTo(409);
    assertErrorBody(duplicate, "TENANT_EXISTS", "duplicate name");
    assertThat(duplicate.body()).doesNotContain("ck_");
  }

  @Test
  void aBadBodyIs400Or422WithTheErrorBody() throws Exception {
    for (String body : new String[] {"{nope", "[\"a list\"]", "\"a string\"", ""}) {
      Credentialed.Reply reply = admin("POST", "/v1/admin/tenants", body);
      assertThat(reply.status()).as(body + ": " + reply.body()).isEqualTo(400);
      assertErrorBody(reply, reply.code(), body);
    }
    for (String body : new String[] {"{}", "{\"name\": \"\"}", "{\"name\": 42}", "{\"name\": null}",
        "{\"name\": \"has spaces\"}", "{\"name\": \"" + "x".repeat(65) + "\"}", "{\"name\": \"-leading-dash\"}"}) {
      Credentialed.Reply reply = admin("POST", "/v1/admin/tenants", body);
      assertThat(reply.status()).as(body + ": " + reply.body()).isEqualTo(422);
      assertErrorBody(reply, "INVALID_TENANT_NAME", body);
    }
  }
}
