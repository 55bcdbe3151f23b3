package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.SettingsException;
import dev.colloquy.mockllm.MockLlmSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS between the nodes (colloquy.cluster.tls): two Colloquy nodes whose key stores hold the
 * cluster's certificate form a cluster over TLS; a node built from the same settings but showing a
 * certificate the cluster does not trust never becomes a member, while a trusted one started after
 * it does. Key stores are made by keytool at test time. Bad settings stop the node at start with
 * a message naming the key, never the password.
 */
class ClusterTlsIntegrationTest {

  private static final ClusterKeystores STORES = ClusterKeystores.generate();
  private static final Duration JOIN_WITHIN = Duration.ofSeconds(60);

  @RegisterExtension
  static final RunningCluster CLUSTER = RunningCluster.of2(MockLlmSettings.defaults(), STORES.settings(STORES.nodeKeys()));

  @TempDir
  Path dataDir;

  @Test
  void trustedNodesFormTheClusterOverTlsAndAStrangerCannotJoin() throws Exception {
    ActorSystem<?> first = CLUSTER.node(0).system();
    assertThat(first.settings().config().getString("pekko.remote.artery.transport")).isEqualTo("tls-tcp");
    assertThat(upMembers(first)).hasSize(2);

    Address seed = Cluster.get(first).selfMember().address();
    ActorSystem<Void> stranger = bareNode(STORES.strangerKeys(), seed, "stranger");
    ActorSystem<Void> trusted = null;
    try {
      trusted = bareNode(STORES.nodeKeys(), seed, "trusted");
      Address trustedAddress = Cluster.get(trusted).selfMember().address();
      awaitCondition("the trusted third node is Up", () -> upMembers(first).contains(trustedAddress));

      Address strangerAddress = Cluster.get(stranger).selfMember().address();
      assertThat(StreamSupport.stream(Cluster.get(first).state().getMembers().spliterator(), false)
          .map(member -> member.address()).toList()).as("members, after the stranger tried as long as the trusted node")
          .contains(trustedAddress).doesNotContain(strangerAddress);
      assertThat(Cluster.get(stranger).selfMember().status()).isNotEqualTo(MemberStatus.up());
      assertThat(upMembers(stranger)).doesNotContain(seed);
    } finally {
      stranger.terminate();
      if (trusted != null) {
        trusted.terminate();
      }
    }
  }

  @Test
  void aWrongPasswordOrAKeyStoreWithoutAKeyStopsTheNodeAtStartNamingTheKey() throws Exception {
    Map<String, Object> wrongPassword = new HashMap<>(STORES.settings(STORES.nodeKeys()));
    wrongPassword.put("colloquy.cluster.tls.key-store-password", "not-the-password");
    assertThatThrownBy(() -> settings(wrongPassword)).isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.tls.key-store").hasMessageContaining("cannot be opened")
        .hasMessageNotContaining("not-the-password");

    Map<String, Object> noKey = new HashMap<>(STORES.settings(STORES.trust()));
    assertThatThrownBy(() -> settings(noKey)).isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.tls.key-store").hasMessageContaining("holds no private key");

    Map<String, Object> missing = new HashMap<>(STORES.settings(dataDir.resolve("absent.p12")));
    assertThatThrownBy(() -> settings(missing)).isInstanceOf(SettingsException.class)
        .hasMessageContaining("colloquy.cluster.tls.key-store").hasMessageContaining("cannot read the file");

    assertThat(settings(STORES.settings(STORES.nodeKeys())).cluster().tls().toString())
        .doesNotContain(STORES.password());
  }

  private ColloquySettings settings(Map<String, Object> tls) throws Exception {
    Files.createDirectories(dataDir);
    return ColloquySettings.create(Colloquy.loadConfig(TestColloquy.overrides(CLUSTER.mock(), dataDir, tls)));
  }

  /**
   * An actor system configured as a Colloquy node is (the same settings and the same translation to
   * Pekko's keys), joining {@code seed}: the cluster membership is all it runs.
   */
  private ActorSystem<Void> bareNode(Path keys, Address seed, String name) throws Exception {
    Map<String, Object> extra = new HashMap<>(STORES.settings(keys));
    extra.put("pekko.cluster.seed-nodes", List.of(seed.toString()));
    extra.put("pekko.cluster.jmx.multi-mbeans-in-same-jvm", "on");
    Config config = Colloquy.loadConfig(TestColloquy.overrides(CLUSTER.mock(), dataDir.resolve(name), extra));
    ColloquySettings settings = ColloquySettings.create(config);
    return ActorSystem.create(Behaviors.empty(), "colloquy",
        ClusterFormation.pekkoConfig(settings.cluster(), config).withFallback(config));
  }

  private static List<Address> upMembers(ActorSystem<?> system) {
    return StreamSupport.stream(Cluster.get(system).state().getMembers().spliterator(), false)
        .filter(member -> member.status() == MemberStatus.up()).map(member -> member.address()).toList();
  }

  private static void awaitCondition(String what, java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + JOIN_WITHIN.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + JOIN_WITHIN + ": " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
