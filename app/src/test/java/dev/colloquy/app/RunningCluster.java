package dev.colloquy.app;

import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingQuery;
import org.apache.pekko.cluster.sharding.typed.GetShardRegionState;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A cluster of two real Colloquy nodes in this JVM for a whole test class: distinct HTTP and cluster
 * ports, separate data directories, one PostgreSQL (embedded, started apart from both) as a
 * multi-node run needs, and one mock model server. The second node joins the first as its seed.
 */
final class RunningCluster implements BeforeAllCallback, AfterAllCallback {

  private static final Duration STARTUP = Duration.ofSeconds(60);

  private final MockLlmSettings mockSettings;
  private final Map<String, Object> overrides;
  private final List<Path> dirs = new ArrayList<>();
  private final List<Colloquy> nodes = new ArrayList<>();
  private final List<Api> apis = new ArrayList<>();
  private EmbeddedPostgres postgres;
  private MockLlmServer mock;

  private RunningCluster(MockLlmSettings mockSettings, Map<String, Object> overrides) {
    this.mockSettings = mockSettings;
    this.overrides = overrides;
  }

  static RunningCluster of2(MockLlmSettings mockSettings, Map<String, Object> overrides) {
    return new RunningCluster(mockSettings, overrides);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    postgres = EmbeddedPostgres.builder().setDataDirectory(tempDir("colloquy-cluster-pg")).start();
    mock = MockLlmServer.start(mockSettings, "127.0.0.1", 0);
    Map<String, Object> shared = new HashMap<>(overrides);
    shared.put("pekko.cluster.jmx.multi-mbeans-in-same-jvm", "on");
    shared.put("colloquy.storage.db.url", "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres");
    shared.put("colloquy.storage.db.user", "postgres");
    shared.put("colloquy.storage.db.password", "postgres");
    startNode(shared);
    Map<String, Object> joining = new HashMap<>(shared);
    joining.put("pekko.cluster.seed-nodes", List.of(Cluster.get(nodes.getFirst().system()).selfMember().address().toString()));
    startNode(joining);
    awaitBothUp();
  }

  private void startNode(Map<String, Object> settings) throws Exception {
    Colloquy node = TestColloquy.start(mock, tempDir("colloquy-node"), settings);
    nodes.add(node);
    apis.add(TestColloquy.api(node));
  }

  private Path tempDir(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    dirs.add(dir);
    return dir;
  }

  private void awaitBothUp() {
    await("both nodes see two members up", () -> nodes.stream().allMatch(node ->
        java.util.stream.StreamSupport.stream(Cluster.get(node.system()).state().getMembers().spliterator(), false)
            .filter(member -> member.status() == MemberStatus.up()).count() == 2));
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    for (Colloquy node : nodes.reversed()) {
      node.close();
    }
    if (mock != null) {
      mock.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    for (Path dir : dirs) {
      if (!Files.exists(dir)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  MockLlmServer mock() {
    return mock;
  }

  Colloquy node(int node) {
    return nodes.get(node);
  }

  Api api(int node) {
    return apis.get(node);
  }

  /**
   * A new session that lives on {@code node}: sessions are opened (through that node's API, which
   * does not choose where they live) until sharding places one there.
   */
  String sessionHostedBy(int node) throws Exception {
    return sessionPlacedOn(node, () -> api(node).openSession());
  }

  /**
   * Opens sessions with {@code open} until sharding places one on {@code node}. Bounded by time, not
   * by attempts: until the node's shard region has registered with the coordinator (a moment after
   * both members are up), every new shard goes to the other node, however many sessions are opened.
   */
  String sessionPlacedOn(int node, java.util.concurrent.Callable<String> open) throws Exception {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (System.nanoTime() < deadline) {
      String sessionId = open.call();
      if (hostedSessions(node).contains(sessionId)) {
        return sessionId;
      }
    }
    throw new AssertionError("no session was placed on node " + node + " within " + STARTUP);
  }

  /** How many sessions the shared journal holds any event of. */
  int journaledSessions() throws java.sql.SQLException {
    try (java.sql.Connection connection = postgres.getPostgresDatabase().getConnection();
        java.sql.ResultSet count = connection.createStatement()
            .executeQuery("SELECT count(DISTINCT persistence_id) FROM event_journal")) {
      count.next();
      return count.getInt(1);
    }
  }

  /** The sessions whose entities run on {@code node}, as its shard region reports them. */
  Set<String> hostedSessions(int node) throws Exception {
    ActorSystem<?> system = nodes.get(node).system();
    ShardRegion.CurrentShardRegionState state = AskPattern.<ClusterShardingQuery, ShardRegion.CurrentShardRegionState>ask(
            ClusterSharding.get(system).shardState(),
            replyTo -> new GetShardRegionState(ChatSession.ENTITY_KEY, replyTo),
            Duration.ofSeconds(5), system.scheduler())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    return state.getShards().stream().flatMap(shard -> shard.getEntityIds().stream()).collect(Collectors.toSet());
  }

  private static void await(String what, java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + STARTUP + ": " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }
}
