package dev.colloquy.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.mockllm.MockLlmSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Three {@code colloquy serve} processes find each other through Cluster Bootstrap and show it on their management port. */
class ClusterFormationTest {

  @Test
  void threeProcessesFormOneClusterAndReportItOnTheirManagementEndpoints() throws Exception {
    try (LocalCluster cluster = LocalCluster.start(3, MockLlmSettings.defaults(), Map.of())) {
      for (int viewer = 0; viewer < 3; viewer++) {
        assertThat(cluster.members(viewer)).as("members seen by node " + viewer).containsOnly(
            Map.entry(cluster.node(0).clusterAddress(), "Up"),
            Map.entry(cluster.node(1).clusterAddress(), "Up"),
            Map.entry(cluster.node(2).clusterAddress(), "Up"));
        assertThat(ServeProcess.status(cluster.node(viewer).managementUrl() + "/alive")).isEqualTo(200);
        assertThat(ServeProcess.status(cluster.node(viewer).managementUrl() + "/ready")).isEqualTo(200);
        assertThat(ServeProcess.status(cluster.node(viewer).httpUrl() + "/ready")).isEqualTo(200);
      }
    }
  }
}
