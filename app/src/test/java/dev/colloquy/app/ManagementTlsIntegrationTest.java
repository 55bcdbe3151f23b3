package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.SettingsException;
import dev.colloquy.http.Json;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.PlannedPort;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS with mutual TLS on the management port (colloquy.cluster.management.tls), with real
 * {@code colloquy serve} processes: two nodes whose management endpoints speak nothing but TLS and
 * want a trusted certificate from every client form one cluster with Cluster Bootstrap (config
 * discovery), so their probes of each other went over HTTPS showing their certificates; an operator's
 * client with the node certificate reads membership, /alive and /ready; plain HTTP, a client showing
 * no certificate and one showing a certificate nobody trusts get nothing. With client certificates not
 * required (for Kubernetes' probes) any TLS client reads them, plain HTTP still nothing. A wrong
 * password stops the process at start naming the key.
 */
class ManagementTlsIntegrationTest {

  private static final ClusterKeystores STORES = ClusterKeystores.generate();

  @RegisterExtension
  final ChildColloquies children = new ChildColloquies();

  @TempDir
  Path workDir;

  private static MockLlmServer mock;

  @BeforeAll
  static void startMock() {
    mock = TestColloquy.startMock();
  }

  @AfterAll
  static void stopMock() {
    mock.close();
  }

  @Test
  void twoNodesBootstrapOverMutualTlsAndTheManagementPortRefusesEveryoneElse() throws Exception {
    try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(workDir.resolve("pg")).start()) {
      int[] management = {PlannedPort.forAnotherServer(), PlannedPort.forAnotherServer()};
      String contactPoints = "127.0.0.1:" + management[0] + ",127.0.0.1:" + management[1];
      Map<String, String> first = node(postgres, management[0], contactPoints);
      first.putAll(Map.of(
          "COLLOQUY_MANAGEMENT_TLS_KEY_STORE", STORES.nodeKeys().toString(),
          "COLLOQUY_MANAGEMENT_TLS_KEY_STORE_PASSWORD", STORES.password(),
          "COLLOQUY_MANAGEMENT_TLS_TRUST_STORE", STORES.trust().toString(),
          "COLLOQUY_MANAGEMENT_TLS_TRUST_STORE_PASSWORD", STORES.password()));
      // The second names the stores only under colloquy.cluster.tls (left off), which the management port takes.
      Map<String, String> second = node(postgres, management[1], contactPoints);
      second.putAll(Map.of(
          "COLLOQUY_CLUSTER_TLS_KEY_STORE", STORES.nodeKeys().toString(),
          "COLLOQUY_CLUSTER_TLS_KEY_STORE_PASSWORD", STORES.password(),
          "COLLOQUY_CLUSTER_TLS_TRUST_STORE", STORES.trust().toString(),
          "COLLOQUY_CLUSTER_TLS_TRUST_STORE_PASSWORD", STORES.password()));
      List<ChildColloquy> nodes = List.of(
          children.launch(workDir.resolve("node-0"), mock, first, "384m"),
          children.launch(workDir.resolve("node-1"), mock, second, "384m"));
      for (ChildColloquy node : nodes) {
        node.awaitReady();
      }

      ManagementClient operator = ManagementClient.of(STORES.nodeKeys(), STORES.trust(), STORES.password());
      for (int port : management) {
        ManagementClient.Response members = operator.get(port, "/cluster/members");
        assertThat(members.status()).as(members.raw()).isEqualTo(200);
        JsonNode membership = Json.MAPPER.readTree(members.body());
        assertThat(membership.path("members")).as(members.body()).hasSize(2)
            .allSatisfy(member -> assertThat(member.path("status").asText()).isEqualTo("Up"));
        assertThat(operator.get(port, "/alive").status()).isEqualTo(200);
        assertThat(operator.get(port, "/ready").status()).isEqualTo(200);
      }
      // Bootstrap probes the others with the scheme of the node's own endpoints; those answer nothing
      // but TLS with a trusted client certificate (below), and neither node formed a cluster alone.
      assertThat(children.output(0)).contains("on https://127.0.0.1:" + management[0]);
      assertThat(children.output(1)).contains("on https://127.0.0.1:" + management[1]);

      assertThat(ManagementClient.plainGet(management[0], "/alive")).as("plain HTTP").doesNotStartWith("HTTP/");
      ManagementClient anonymous = ManagementClient.of(null, STORES.trust(), STORES.password());
      assertThatThrownBy(() -> anonymous.get(management[0], "/alive")).as("no client certificate")
          .isInstanceOf(IOException.class);
      ManagementClient stranger = ManagementClient.of(STORES.strangerKeys(), STORES.trust(), STORES.password());
      assertThatThrownBy(() -> stranger.get(management[1], "/alive")).as("an untrusted certificate")
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void withoutRequiredClientCertificatesAnyTlsClientReadsTheEndpointsAsAKubernetesProbeDoes() throws Exception {
    int management = PlannedPort.forAnotherServer();
    Map<String, String> env = new HashMap<>();
    env.put("COLLOQUY_CLUSTER_HOST", "127.0.0.1");
    env.put("COLLOQUY_MANAGEMENT_ENABLED", "true");
    env.put("COLLOQUY_MANAGEMENT_PORT", Integer.toString(management));
    env.put("COLLOQUY_MANAGEMENT_TLS_ENABLED", "true");
    env.put("COLLOQUY_MANAGEMENT_TLS_REQUIRE_CLIENT_CERTIFICATE", "false");
    env.put("COLLOQUY_MANAGEMENT_TLS_KEY_STORE", STORES.nodeKeys().toString());
    env.put("COLLOQUY_MANAGEMENT_TLS_KEY_STORE_PASSWORD", STORES.password());
    env.put("COLLOQUY_MANAGEMENT_TLS_TRUST_STORE", STORES.trust().toString());
    env.put("COLLOQUY_MANAGEMENT_TLS_TRUST_STORE_PASSWORD", STORES.password());
    children.launch(workDir.resolve("single"), mock, env, "384m").awaitReady();

    ManagementClient anonymous = ManagementClient.of(null, STORES.trust(), STORES.password());
    assertThat(anonymous.get(management, "/alive").status()).isEqualTo(200);
    assertThat(anonymous.get(management, "/ready").status()).isEqualTo(200);
    assertThat(ManagementClient.plainGet(management, "/ready")).as("plain HTTP").doesNotStartWith("HTTP/");
  }

  @Test
  void aWrongPasswordStopsServeAtStartNamingTheKeyAndAMissingFileOrAWrongKeyPasswordIsRefusedToo() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("COLLOQUY_MANAGEMENT_ENABLED", "true");
    env.put("COLLOQUY_MANAGEMENT_PORT", Integer.toString(PlannedPort.forAnotherServer()));
    env.put("COLLOQUY_MANAGEMENT_TLS_ENABLED", "true");
    env.put("COLLOQUY_MANAGEMENT_TLS_KEY_STORE", STORES.nodeKeys().toString());
    env.put("COLLOQUY_MANAGEMENT_TLS_KEY_STORE_PASSWORD", "not-the-password");
    env.put("COLLOQUY_MANAGEMENT_TLS_TRUST_STORE", STORES.trust().toString());
    env.put("COLLOQUY_MANAGEMENT_TLS_TRUST_STORE_PASSWORD", STORES.password());
    ChildColloquy wrongPassword = children.launch(workDir.resolve("wrong"), mock, env, "256m");
    assertThat(wrongPassword.exitCode(Duration.ofSeconds(60))).isNotZero();
    assertThat(children.output(0)).contains("colloquy.cluster.management.tls.key-store")
        .contains("COLLOQUY_MANAGEMENT_TLS_KEY_STORE").contains("cannot be opened with its password")
        .doesNotContain("not-the-password");

    Map<String, Object> missing = Map.of(
        "colloquy.cluster.management.tls.enabled", true,
        "colloquy.cluster.management.tls.key-store", STORES.nodeKeys().toString(),
        "colloquy.cluster.management.tls.key-store-password", STORES.password(),
        "colloquy.cluster.management.tls.trust-store", workDir.resolve("absent.p12").toString(),
        "colloquy.cluster.management.tls.trust-store-password", STORES.password());
    Files.createDirectories(workDir.resolve("missing"));
    assertThatThrownBy(() -> ColloquySettings.create(Colloquy.loadConfig(
            TestColloquy.overrides(mock, workDir.resolve("missing"), missing))))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.management.tls.trust-store").hasMessageContaining("cannot read the file");

    Map<String, Object> wrongKeyPassword = new HashMap<>(missing);
    wrongKeyPassword.put("colloquy.cluster.management.tls.trust-store", STORES.trust().toString());
    wrongKeyPassword.put("colloquy.cluster.management.tls.key-password", "not-the-key-password");
    assertThatThrownBy(() -> ColloquySettings.create(Colloquy.loadConfig(
            TestColloquy.overrides(mock, workDir.resolve("missing"), wrongKeyPassword))))
        .isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.management.tls.key-password")
        .hasMessageContaining("does not open the private key").hasMessageNotContaining("not-the-key-password");
  }

  private Map<String, String> node(EmbeddedPostgres postgres, int managementPort, String contactPoints) {
    Map<String, String> env = new HashMap<>();
    env.put("COLLOQUY_CLUSTER_HOST", "127.0.0.1");
    env.put("COLLOQUY_MANAGEMENT_PORT", Integer.toString(managementPort));
    env.put("COLLOQUY_CLUSTER_DISCOVERY", "config");
    env.put("COLLOQUY_CLUSTER_CONTACT_POINTS", contactPoints);
    env.put("COLLOQUY_CLUSTER_REQUIRED_CONTACT_POINTS", "2");
    env.put("COLLOQUY_MANAGEMENT_TLS_ENABLED", "true");
    env.put("COLLOQUY_DB_URL", "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres");
    env.put("COLLOQUY_DB_USER", "postgres");
    env.put("COLLOQUY_DB_PASSWORD", "postgres");
    env.put("COLLOQUY_LOG_LEVEL", "INFO");
    return env;
  }
}
