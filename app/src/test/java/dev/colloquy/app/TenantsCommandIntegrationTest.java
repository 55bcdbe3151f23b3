package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.app.cli.Cli;
import dev.colloquy.mockllm.MockLlmServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code colloquy tenants} on a running node through the admin API, and on a data directory with no
 * server running; the keys it prints are real keys of the server.
 */
class TenantsCommandIntegrationTest {

  private static final String ADMIN_TOKEN = "admin-token-for-tenants-command-tests";

  @TempDir
  Path dataDir;

  private final StringWriter err = new StringWriter();

  @AfterEach
  void clearAdminToken() {
    System.clearProperty("colloquy.admin.token");
  }

  /** Runs the command line and returns the JSON lines it printed; it must succeed. */
  private List<JsonNode> run(String... args) throws Exception {
    StringWriter out = new StringWriter();
    err.getBuffer().setLength(0);
    int exit = new CommandLine(new Cli()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .setExecutionExceptionHandler(TenantsCommandIntegrationTest::oneLine).execute(args);
    assertThat(exit).as(String.join(" ", args) + ": " + err).isZero();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : out.toString().lines().toList()) {
      lines.add(Api.JSON.readTree(line));
    }
    return lines;
  }

  /** Runs the command line, which must fail with one line on stderr; returns that line. */
  private String refused(String... args) {
    err.getBuffer().setLength(0);
    int exit = new CommandLine(new Cli()).setOut(new PrintWriter(new StringWriter())).setErr(new PrintWriter(err, true))
        .setExecutionExceptionHandler(TenantsCommandIntegrationTest::oneLine).execute(args);
    assertThat(exit).as(String.join(" ", args)).isEqualTo(1);
    String line = err.toString().strip();
    assertThat(line).startsWith("colloquy: ").doesNotContain("\n").doesNotContain("Exception");
    return line;
  }

  /** As the command line's own handler prints a failure (main sets it; it is not public). */
  private static int oneLine(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    command.getErr().println("colloquy: " + Failures.describe(e));
    command.getErr().flush();
    return 1;
  }

  private static List<String> fieldNames(JsonNode line) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = line.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }

  private static int status(Colloquy colloquy, String apiKey) throws Exception {
    return Credentialed.bearer(colloquy.baseUrl(), "/v1/sessions", apiKey).status();
  }

  @Test
  void onARunningServerTenantsAndKeysAreManagedThroughTheAdminApi() throws Exception {
    try (MockLlmServer mock = TestColloquy.startMock();
        Colloquy colloquy = TestColloquy.start(mock, dataDir, Map.of("colloquy.admin.token", ADMIN_TOKEN))) {
      String server = colloquy.baseUrl();
      assertThat(refused("tenants", "list", "--server", server)).contains("COLLOQUY_ADMIN_TOKEN");
      System.setProperty("colloquy.admin.token", ADMIN_TOKEN);

      List<JsonNode> created = run("tenants", "create", "acme", "--server", server);
      assertThat(created).hasSize(1);
      JsonNode tenant = created.get(0);
      assertThat(fieldNames(tenant)).containsExactly("tenant_id", "name", "api_key");
      assertThat(tenant.path("name").asText()).isEqualTo("acme");
      assertThat(status(colloquy, tenant.path("api_key").asText())).isEqualTo(200);

      assertThat(run("tenants", "list", "--server", server)).extracting(line -> line.path("name").asText())
          .contains("acme");

      JsonNode key = run("tenants", "keys", "create", "acme", "--server", server).get(0);
      assertThat(key.path("tenant_id").asText()).isEqualTo(tenant.path("tenant_id").asText());
      assertThat(key.path("api_key").asText()).startsWith("ck_" + key.path("key_id").asText() + "_");
      assertThat(status(colloquy, key.path("api_key").asText())).isEqualTo(200);

      run("tenants", "keys", "revoke", key.path("key_id").asText(), "--server", server);
      awaitStatus(colloquy, key.path("api_key").asText(), 401, Duration.ofSeconds(5));
      assertThat(status(colloquy, tenant.path("api_key").asText())).isEqualTo(200);

      assertThat(refused("tenants", "keys", "revoke", key.path("key_id").asText(), "--server", server))
          .contains("no active key");
      assertThat(refused("tenants", "create", "acme", "--server", server)).contains("409").contains("TENANT_EXISTS");
      assertThat(refused("tenants", "keys", "create", "nobody", "--server", server)).contains("nobody");
    }
  }

  @Test
  void onADataDirectoryTheKeysWorkOnceTheServerStarts() throws Exception {
    try (MockLlmServer mock = TestColloquy.startMock()) {
      TestColloquy.start(mock, dataDir).close();
      String dir = dataDir.toString();

      JsonNode tenant = run("tenants", "create", "globex", "--data-dir", dir).get(0);
      assertThat(fieldNames(tenant)).containsExactly("tenant_id", "name", "api_key");
      JsonNode extra = run("tenants", "keys", "create", "globex", "--data-dir", dir).get(0);
      JsonNode revoked = run("tenants", "keys", "create", tenant.path("tenant_id").asText(), "--data-dir", dir).get(0);
      assertThat(run("tenants", "keys", "revoke", revoked.path("key_id").asText(), "--data-dir", dir).get(0)
          .path("revoked").asBoolean()).isTrue();
      assertThat(run("tenants", "list", "--data-dir", dir)).extracting(line -> line.path("name").asText())
          .containsOnlyOnce("globex");
      assertThat(refused("tenants", "create", "not a name", "--data-dir", dir)).contains("tenant name");

      try (Colloquy colloquy = TestColloquy.start(mock, dataDir)) {
        assertThat(status(colloquy, tenant.path("api_key").asText())).isEqualTo(200);
        assertThat(status(colloquy, extra.path("api_key").asText())).isEqualTo(200);
        assertThat(status(colloquy, revoked.path("api_key").asText())).isEqualTo(401);
      }
    }
  }

  private static void awaitStatus(Colloquy colloquy, String apiKey, int expected, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (status(colloquy, apiKey) != expected) {
      assertThat(System.nanoTime()).as("the key answers " + expected + " within " + within).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
