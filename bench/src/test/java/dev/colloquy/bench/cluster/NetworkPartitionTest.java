package dev.colloquy.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colloquy.mockllm.MockLlmSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A real network partition: three {@code colloquy serve} processes, each in a Linux network namespace
 * of its own, joined by a bridge that also reaches PostgreSQL and the mock model. Clients stream turns
 * through two of the nodes; then the third node's link goes down. That node, alone on its side, is
 * downed by its own split brain resolver and exits with status 3, its readiness failing (as seen by
 * a client on its side) from then on; the two others remove it and serve its sessions, every client gets its whole answer, and no
 * journal has two alternating writers (the cut-off node cannot reach the database either). Once the
 * link is up again, the node started again joins the cluster.
 */
class NetworkPartitionTest {

  /** About 6 s of tokens per attempt: the cut comes in the middle. */
  private static final MockLlmSettings MODEL = MockLlmSettings.defaults().withTokens(150)
      .withDelays(Duration.ofMillis(100), Duration.ofMillis(40));
  /** A bound that tells a failover from a session lost for good; how fast it is, `colloquy bench failover` measures. */
  private static final Duration SERVED_AGAIN_WITHIN = Duration.ofSeconds(30);
  private static final int MINORITY = 2;

  @Test
  void theNodeCutOffDownsItselfAndTheOtherTwoServeItsSessions() throws Exception {
    Optional<String> unavailable = NetnsNetwork.unavailable();
    if (unavailable.isPresent()) {
      System.out.println("NetworkPartitionTest skipped: " + unavailable.get());
      Assumptions.abort(unavailable.get());
    }
    try (NetnsNetwork network = NetnsNetwork.create(3);
        LocalCluster cluster = LocalCluster.start(3, MODEL, Map.of(), network)) {
      cluster.configureTenant("{\"continue_after_failover\": true}");
      cluster.awaitStable(Duration.ofSeconds(3), LocalCluster.READY_TIMEOUT);
      for (int viewer = 0; viewer < 3; viewer++) {
        assertThat(cluster.members(viewer)).as("members seen by node " + viewer).hasSize(3)
            .containsOnlyKeys(IntStream.range(0, 3).mapToObj(node -> cluster.node(node).clusterAddress()).toList())
            .allSatisfy((address, status) -> assertThat(status).isEqualTo("Up"));
      }

      Partition partition = new Partition(network);
      FailoverScenario.Round round = FailoverScenario.run(cluster, new FailoverScenario.Options(6, 20,
          Duration.ofSeconds(90), MODEL.text(MODEL.tokens())), partition);
      OptionalInt exit = cluster.node(MINORITY).awaitExit(Duration.ofSeconds(60));
      partition.watcher.join(Duration.ofSeconds(10));

      String report = round + "\nreadiness of the cut-off node from its side (ms after the cut: status, on each change): "
          + partition.changes() + "; exited " + exit
          + (exit.isPresent() ? "" : "\nthe cut-off node's last log lines:\n" + lastMessages(cluster.node(MINORITY), 40));
      assertThat(round.victim()).isEqualTo(MINORITY);
      assertThat(round.problems(SERVED_AGAIN_WITHIN)).as(report).isEmpty();
      assertThat(round.affected()).as(report).isNotEmpty().allSatisfy(turn -> {
        assertThat(turn.terminal()).isEqualTo("turn.completed");
        assertThat(turn.resumedAfter()).isNotNull();
      });
      List<String> moved = round.affected().stream().map(FailoverScenario.TurnReport::sessionId).toList();
      assertThat(round.journals()).as("the journals of the sessions the cut-off node hosted: it wrote, then a survivor")
          .filteredOn(journal -> moved.contains(journal.sessionId())).hasSize(moved.size())
          .allSatisfy(journal -> assertThat(journal.writers()).isGreaterThanOrEqualTo(2));
      assertThat(exit).as("the cut-off node's exit status (3: downed by the cluster)\n" + report).hasValue(3);
      // Pekko Management answers 500 when a check fails or times out (the journal is out of reach), then
      // nothing listens while the node shuts down; it is never ready again once it has failed.
      List<Integer> statuses = partition.readiness.stream().map(Probe::status).toList();
      assertThat(statuses).as(report).anyMatch(status -> status >= 500);
      assertThat(statuses.subList(statuses.indexOf(statuses.stream().filter(status -> status != 200).findFirst()
          .orElseThrow()), statuses.size())).as(report).doesNotContain(200);
      for (int survivor = 0; survivor < 2; survivor++) {
        assertThat(cluster.members(survivor)).as("members seen by node " + survivor).hasSize(2)
            .doesNotContainKey(cluster.node(MINORITY).clusterAddress())
            .allSatisfy((address, status) -> assertThat(status).isEqualTo("Up"));
        assertThat(ServeProcess.status(cluster.node(survivor).managementUrl() + "/ready")).isEqualTo(200);
      }
      System.out.println(report);

      // The partition ends; the node, started again as its supervisor would, joins the cluster afresh.
      network.heal(MINORITY);
      cluster.node(MINORITY).restart();
      cluster.node(MINORITY).awaitReady(LocalCluster.READY_TIMEOUT);
      assertThat(cluster.members(0)).as("members once the partition has healed").hasSize(3)
          .containsKey(cluster.node(MINORITY).clusterAddress())
          .allSatisfy((address, status) -> assertThat(status).isEqualTo("Up"));
    }
  }

  /** The messages of the node's last {@code count} log lines, each with its time: why a node did not stop. */
  private static String lastMessages(ServeProcess node, int count) throws IOException {
    List<String> lines = Files.readAllLines(node.log());
    ObjectMapper json = new ObjectMapper();
    StringBuilder messages = new StringBuilder();
    for (String line : lines.subList(Math.max(0, lines.size() - count), lines.size())) {
      try {
        JsonNode entry = json.readTree(line);
        String message = entry.path("message").asText();
        messages.append(entry.path("@timestamp").asText()).append(' ')
            .append(message, 0, Math.min(message.length(), 200)).append('\n');
      } catch (JsonProcessingException notJson) {
        messages.append(line, 0, Math.min(line.length(), 200)).append('\n');
      }
    }
    return messages.toString();
  }

  /** One readiness probe: when, after the cut, and its HTTP status (0: nothing answered). */
  private record Probe(long afterMillis, int status) {}

  /**
   * Cuts node {@link #MINORITY}'s link; clients start their turns through the two others. From the
   * moment of the cut until the node's process ends, a client inside its namespace (on its side of the
   * partition) probes its readiness; each status is recorded (0: nothing answered).
   */
  private static final class Partition implements FailoverScenario.Fault {

    private final NetnsNetwork network;
    private final List<Probe> readiness = new CopyOnWriteArrayList<>();
    private Thread watcher = Thread.ofVirtual().unstarted(() -> {});

    Partition(NetnsNetwork network) {
      this.network = network;
    }

    @Override
    public List<Integer> entryNodes(int size) {
      return IntStream.range(0, size).filter(node -> node != MINORITY).boxed().toList();
    }

    @Override
    public int victim(Map<String, Integer> hosts, int size) {
      return MINORITY;
    }

    @Override
    public void inject(LocalCluster cluster, int victim) throws Exception {
      network.cut(victim);
      ServeProcess node = cluster.node(victim);
      String ready = node.managementUrl() + "/ready";
      long cutAt = System.nanoTime();
      watcher = Thread.ofVirtual().start(() -> {
        long until = cutAt + Duration.ofSeconds(90).toNanos();
        try {
          while (node.alive() && System.nanoTime() < until) {
            int status = network.statusFromInside(victim, ready, 3);
            if (node.alive()) {
              readiness.add(new Probe(Duration.ofNanos(System.nanoTime() - cutAt).toMillis(), status));
            }
            Thread.sleep(250);
          }
        } catch (Exception e) {
          readiness.add(new Probe(Duration.ofNanos(System.nanoTime() - cutAt).toMillis(), -1));
        }
      });
    }

    /** The probes at which the status changed. */
    List<Probe> changes() {
      List<Probe> changes = new java.util.ArrayList<>();
      for (Probe probe : readiness) {
        if (changes.isEmpty() || changes.getLast().status() != probe.status()) {
          changes.add(probe);
        }
      }
      return changes;
    }
  }
}
