package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One tenant's limits hold across the cluster: turns spread over two nodes meet one bucket, not one per node. */
class TwoNodeRateLimitIntegrationTest {

  @RegisterExtension
  static final RunningCluster cluster = RunningCluster.of2(TestColloquy.fastMock(), Map.of());

  @Test
  void turnsThroughBothNodesShareOneLimit() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(cluster.node(0), "{\"turns_per_minute\": 3}");
    String sessionId = LimitedTenants.openSession(cluster.node(1), key);

    for (int turn = 1; turn <= 3; turn++) {
      Colloquy via = cluster.node(turn % 2);
      Credentialed.Reply answered = LimitedTenants.startTurn(via, key, sessionId, "Question " + turn);
      assertThat(answered.status()).as("turn " + turn + ": " + answered.body()).isEqualTo(200);
    }

    LimitedTenants.assertTooMany(LimitedTenants.startTurn(cluster.node(0), key, sessionId, "Question 4"),
        "RATE_LIMITED", "the fourth turn, through node 0");
    LimitedTenants.assertTooMany(LimitedTenants.startTurn(cluster.node(1), key, sessionId, "Question 4"),
        "RATE_LIMITED", "the fourth turn, through node 1");
  }
}
