package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.PlannedPort;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded PostgreSQL starts on a thread of its own while the actor system starts: a start that
 * fails on either side still names its cause and leaves nothing behind (the data directory's lock,
 * PostgreSQL, the cluster port), so the next start on the same data and port succeeds.
 */
class StartFailureIntegrationTest {

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
  void aClusterPortInUseIsNamedAndTheDatabaseStartedMeanwhileIsStopped(@TempDir Path dataDir) throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      assertThatThrownBy(() -> Colloquy.start(TestColloquy.overrides(mock, dataDir,
              Map.of("pekko.remote.artery.canonical.port", taken.getLocalPort()))))
          .hasMessageContaining("cluster port " + taken.getLocalPort())
          .hasMessageContaining("already in use");
    }
    assertThat(Files.isRegularFile(dataDir.resolve("postgres").resolve("postmaster.pid")))
        .as("PostgreSQL started for the failed start is stopped").isFalse();
    try (Colloquy next = TestColloquy.start(mock, dataDir)) {
      assertThat(new Api(next.baseUrl()).get("/ready").status()).isEqualTo(200);
    }
  }

  @Test
  void aDatabaseThatCannotStartIsNamedAndTheActorSystemStartedMeanwhileIsStopped(@TempDir Path dataDir)
      throws Exception {
    int clusterPort = PlannedPort.forAnotherServer();
    // A data directory PostgreSQL refuses: one made by a version it cannot read.
    Path pgData = Files.createDirectories(dataDir.resolve("postgres"));
    Files.writeString(pgData.resolve("PG_VERSION"), "7\n");
    Map<String, Object> onPort = Map.of("pekko.remote.artery.canonical.port", clusterPort);
    assertThatThrownBy(() -> Colloquy.start(TestColloquy.overrides(mock, dataDir, onPort)))
        .hasMessageContaining(pgData.toString()).hasMessageNotContaining("cluster port");
    try (ServerSocket again = new ServerSocket(clusterPort, 1, InetAddress.getByName("127.0.0.1"))) {
      assertThat(again.getLocalPort()).as("the actor system's cluster port is free again").isEqualTo(clusterPort);
    }
  }
}
