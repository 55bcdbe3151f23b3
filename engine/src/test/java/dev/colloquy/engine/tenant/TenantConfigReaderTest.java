package dev.colloquy.engine.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A turn's steps read a tenant's configuration in place when its entity runs on this node: a change
 * is read by the very next read, one tenant never reads another's, and an entity that stopped is
 * asked for again (and read in place once it has recovered).
 */
class TenantConfigReaderTest {

  private static final Set<String> MODELS = Set.of("mock", "offline");
  private static ActorTestKit testKit;
  private static TenantConfig defaults;
  private static TenantConfigReader reader;
  private static HostedTenantConfigs hosted;

  @BeforeAll
  static void start() {
    Config config = ConfigFactory.parseString("""
            pekko.actor.provider = cluster
            pekko.remote.artery.canonical { hostname = "127.0.0.1", port = 0 }
            pekko.persistence.journal.auto-start-journals = []
            """)
        .withFallback(PersistenceTestKitPlugin.getInstance().config())
        .withFallback(PersistenceTestKitSnapshotPlugin.config())
        .withFallback(ConfigFactory.load());
    testKit = ActorTestKit.create("tenant-config-reader", config);
    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    defaults = TenantConfig.defaults(ColloquySettings.create(config).limits(), 1800, "mock");
    TenantConfiguration.init(testKit.system(), defaults, MODELS);
    reader = new TenantConfigReader(testKit.system(), Duration.ofSeconds(10));
    hosted = HostedTenantConfigs.get(testKit.system());
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static TenantConfig persona(String name) {
    return new TenantConfig(name, null, null, null, null, null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null, null);
  }

  private static TenantConfiguration.Current read(String tenantId) throws Exception {
    return reader.current(tenantId).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static TenantConfiguration.Current change(ActorRef<TenantConfiguration.Command> entity, TenantConfig change) {
    TestProbe<TenantConfiguration.Reply> probe = testKit.createTestProbe();
    entity.tell(new TenantConfiguration.Update(change, probe.getRef()));
    return probe.expectMessageClass(TenantConfiguration.Current.class, Duration.ofSeconds(10));
  }

  private static TenantConfiguration.Current changeThroughSharding(String tenantId, TenantConfig change)
      throws Exception {
    return (TenantConfiguration.Current) ClusterSharding.get(testKit.system())
        .entityRefFor(TenantConfiguration.ENTITY_KEY, tenantId)
        .<TenantConfiguration.Reply>ask(replyTo -> new TenantConfiguration.Update(change, replyTo),
            Duration.ofSeconds(10))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aChangeIsReadByTheNextReadWithoutAskingTheEntity() throws Exception {
    assertThat(read("tenant-next").config().personaName()).isEqualTo(defaults.personaName());

    TenantConfiguration.Current changed = changeThroughSharding("tenant-next", persona("Aria"));

    assertThat(changed.version()).isEqualTo(1);
    var next = reader.current("tenant-next").toCompletableFuture();
    assertThat(next).as("read in place, no ask").isCompletedWithValueMatching(current ->
        current.version() == 1 && "Aria".equals(current.config().personaName()));
    assertThat(read("tenant-next").newWebhookSecret()).as("a secret is never kept for readers").isNull();

    changeThroughSharding("tenant-next", persona("Bea"));
    assertThat(read("tenant-next").config().personaName()).isEqualTo("Bea");
  }

  @Test
  void oneTenantNeverReadsAnothersConfiguration() throws Exception {
    changeThroughSharding("tenant-one", persona("One"));
    changeThroughSharding("tenant-two", persona("Two"));

    assertThat(read("tenant-one").config().personaName()).isEqualTo("One");
    assertThat(read("tenant-two").config().personaName()).isEqualTo("Two");
    assertThat(read("tenant-three").config().personaName()).as("a tenant that set nothing")
        .isEqualTo(defaults.personaName());
    assertThat(read("tenant-three").version()).isZero();
  }

  @Test
  void aStoppedEntityIsAskedForAgainAndReadInPlaceOnceItHasRecovered() throws Exception {
    ActorRef<TenantConfiguration.Command> first =
        testKit.spawn(TenantConfiguration.create("tenant-restarted", defaults, MODELS));
    change(first, persona("Cleo"));
    assertThat(hosted.find("tenant-restarted")).hasValueSatisfying(current ->
        assertThat(current.config().personaName()).isEqualTo("Cleo"));

    testKit.stop(first);
    assertThat(hosted.find("tenant-restarted")).as("its entity no longer runs here").isEmpty();

    testKit.spawn(TenantConfiguration.create("tenant-restarted", defaults, MODELS));
    testKit.createTestProbe().awaitAssert(Duration.ofSeconds(10), () -> {
      assertThat(hosted.find("tenant-restarted")).hasValueSatisfying(current -> {
        assertThat(current.version()).isEqualTo(1);
        assertThat(current.config().personaName()).isEqualTo("Cleo");
      });
      return null;
    });
  }
}
