package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.mockllm.MockLlmServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Development in two commands: a fresh data directory gets the dev tenant's key in a file only its owner reads. */
class DevKeyFileIntegrationTest {

  private static final String ADMIN_TOKEN = "admin-token-for-dev-key-tests";

  @TempDir
  Path dataDir;

  @Test
  void aFreshDataDirectoryGetsAWorkingOwnerOnlyKeyFileAndARestartNoSecondTenant() throws Exception {
    Path keyFile = dataDir.resolve("dev-api-key");
    String key;
    try (MockLlmServer mock = TestColloquy.startMock();
        Colloquy colloquy = TestColloquy.start(mock, dataDir, Map.of("colloquy.admin.token", ADMIN_TOKEN))) {
      assertThat(keyFile).exists();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile))).isEqualTo("rw-------");
      key = Files.readString(keyFile, StandardCharsets.US_ASCII).strip();
      assertThat(key).startsWith("ck_");

      Credentialed.Reply opened = Credentialed.send(colloquy.baseUrl(), "POST", "/v1/sessions", "{}",
          "Authorization", "Bearer " + key);
      assertThat(opened.status()).as(opened.body()).isEqualTo(201);
      assertThat(tenantNames(colloquy)).containsExactly("dev");
    }

    try (MockLlmServer mock = TestColloquy.startMock();
        Colloquy restarted = TestColloquy.start(mock, dataDir, Map.of("colloquy.admin.token", ADMIN_TOKEN))) {
      assertThat(Files.readString(keyFile, StandardCharsets.US_ASCII).strip()).as("the key file is kept").isEqualTo(key);
      assertThat(tenantNames(restarted)).containsExactly("dev");
      Credentialed.Reply listed = Credentialed.get(restarted.baseUrl(), "/v1/sessions", "Authorization", "Bearer " + key);
      assertThat(listed.status()).as(listed.body()).isEqualTo(200);
    }
  }

  private static java.util.List<String> tenantNames(Colloquy colloquy) throws Exception {
    Credentialed.Reply list = Credentialed.get(colloquy.baseUrl(), "/v1/admin/tenants",
        "Authorization", "Bearer " + ADMIN_TOKEN);
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    java.util.List<String> names = new java.util.ArrayList<>();
    list.json().path("tenants").forEach(tenant -> names.add(tenant.path("name").asText()));
    return names;
  }
}
