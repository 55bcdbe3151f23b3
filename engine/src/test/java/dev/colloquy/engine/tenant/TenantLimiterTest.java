package dev.colloquy.engine.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One tenant's limiter on a clock the test moves. */
class TenantLimiterTest {

  private static ActorTestKit testKit;
  private final AtomicLong now = new AtomicLong(1_000_000);
  private ActorRef<TenantLimiter.Command> limiter;
  private String tenant;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void create() {
    tenant = "t-" + UUID.randomUUID();
    limiter = testKit.spawn(TenantLimiter.create(tenant, Duration.ofMinutes(10), now::get));
  }

  private TenantLimiter.Verdict acquire(List<TenantLimiter.Take> takes, String streamId, int maxStreams) {
    TestProbe<TenantLimiter.Verdict> probe = testKit.createTestProbe();
    limiter.tell(new TenantLimiter.Acquire(takes, streamId, maxStreams, probe.ref()));
    return probe.receiveMessage();
  }

  private TenantLimiter.Verdict turn(String key) {
    return acquire(List.of(new TenantLimiter.Take(key, 3)), null, 10);
  }

  @Test
  void aRequestOnTheEntitysNodeTakesFromTheSameBucketsInPlaceUntilTheEntityStops() {
    HostedLimiters hosted = HostedLimiters.get(testKit.system());
    List<TenantLimiter.Take> takes = List.of(new TenantLimiter.Take("turns/credential:k1", 3));
    assertThat(turn("turns/credential:k1")).isInstanceOf(TenantLimiter.Allowed.class);
    assertThat(hosted.acquireHere(tenant, takes, null, 10)).containsInstanceOf(TenantLimiter.Allowed.class);
    assertThat(turn("turns/credential:k1")).isInstanceOf(TenantLimiter.Allowed.class);
    assertThat(hosted.acquireHere(tenant, takes, null, 10)).as("the asks and the in-place take share one bucket")
        .contains(new TenantLimiter.Refused(TenantLimiter.RATE_LIMITED, "Too many requests; try again in 20 s", 20));
    assertThat(turn("turns/credential:k1")).isInstanceOf(TenantLimiter.Refused.class);
    assertThat(hosted.acquireHere("another-tenant", takes, null, 10)).as("a tenant whose entity is not here").isEmpty();

    testKit.stop(limiter);
    assertThat(hosted.acquireHere(tenant, takes, null, 10)).as("asked again once its entity stopped").isEmpty();
  }

  @Test
  void aStreamSlotTakenInPlaceIsFreedByTheEntitysRelease() {
    HostedLimiters hosted = HostedLimiters.get(testKit.system());
    List<TenantLimiter.Take> takes = List.of(new TenantLimiter.Take("requests/credential:k1", 100));
    acquire(takes, "s1", 1);
    assertThat(hosted.acquireHere(tenant, takes, "s2", 1)).containsInstanceOf(TenantLimiter.Refused.class);
    limiter.tell(new TenantLimiter.ReleaseStream("s1"));
    assertThat(acquire(takes, null, 1)).isInstanceOf(TenantLimiter.Allowed.class);
    assertThat(hosted.acquireHere(tenant, takes, "s2", 1)).containsInstanceOf(TenantLimiter.Allowed.class);
  }

  @Test
  void aMinutesWorthPassesThenTheNextWaitsForItsToken() {
    for (int i = 0; i < 3; i++) {
      assertThat(turn("turns/credential:k1")).isInstanceOf(TenantLimiter.Allowed.class);
    }
    TenantLimiter.Verdict refused = turn("turns/credential:k1");
    assertThat(refused).isEqualTo(new TenantLimiter.Refused(TenantLimiter.RATE_LIMITED,
        "Too many requests; try again in 20 s", 20));
    assertThat(turn("turns/credential:k2")).isInstanceOf(TenantLimiter.Allowed.class);

    now.addAndGet(20_000);
    assertThat(turn("turns/credential:k1")).isInstanceOf(TenantLimiter.Allowed.class);
    assertThat(turn("turns/credential:k1")).isInstanceOf(TenantLimiter.Refused.class);
  }

  @Test
  void aRefusedRequestUsesUpNoneOfItsLimits() {
    for (int i = 0; i < 3; i++) {
      turn("turns/user:u1");
    }
    List<TenantLimiter.Take> both = List.of(new TenantLimiter.Take("requests/user:u1", 3),
        new TenantLimiter.Take("turns/user:u1", 3));
    assertThat(acquire(both, null, 10)).isInstanceOf(TenantLimiter.Refused.class);
    assertThat(acquire(List.of(new TenantLimiter.Take("requests/user:u1", 3)), null, 10))
        .isInstanceOf(TenantLimiter.Allowed.class);
  }

  @Test
  void streamsBeyondTheLimitWaitForARelease() {
    assertThat(acquire(List.of(), "s1", 2)).isInstanceOf(TenantLimiter.Allowed.class);
    assertThat(acquire(List.of(), "s2", 2)).isInstanceOf(TenantLimiter.Allowed.class);
    TenantLimiter.Verdict third = acquire(List.of(), "s3", 2);
    assertThat(third).isInstanceOf(TenantLimiter.Refused.class);
    assertThat(((TenantLimiter.Refused) third).code()).isEqualTo(TenantLimiter.QUOTA_EXCEEDED);

    limiter.tell(new TenantLimiter.ReleaseStream("s1"));
    assertThat(acquire(List.of(), "s3", 2)).isInstanceOf(TenantLimiter.Allowed.class);
  }

  @Test
  void aSlotWhoseReleaseNeverCameLapses() {
    acquire(List.of(), "s1", 1);
    assertThat(acquire(List.of(), "s2", 1)).isInstanceOf(TenantLimiter.Refused.class);
    now.addAndGet(Duration.ofMinutes(10).toMillis());
    assertThat(acquire(List.of(), "s2", 1)).isInstanceOf(TenantLimiter.Allowed.class);
  }

  @Test
  void slotsLapseInTheOrderTheyWereTakenAndOneTakenAgainHoldsAFullLeaseFromThen() {
    acquire(List.of(), "s1", 2);
    now.addAndGet(Duration.ofMinutes(5).toMillis());
    acquire(List.of(), "s2", 2);
    now.addAndGet(Duration.ofMinutes(1).toMillis());
    assertThat(acquire(List.of(), "s1", 2)).as("s1 taken again").isInstanceOf(TenantLimiter.Allowed.class);

    now.addAndGet(Duration.ofMinutes(4).toMillis());
    assertThat(acquire(List.of(), "s3", 2)).as("s1's first lease has passed, its second holds")
        .isInstanceOf(TenantLimiter.Refused.class);
    now.addAndGet(Duration.ofMinutes(5).toMillis());
    assertThat(acquire(List.of(), "s3", 2)).as("s2 has lapsed").isInstanceOf(TenantLimiter.Allowed.class);
    assertThat(acquire(List.of(), "s4", 2)).as("s1 and s3 hold").isInstanceOf(TenantLimiter.Refused.class);
    now.addAndGet(Duration.ofMinutes(1).toMillis());
    assertThat(acquire(List.of(), "s4", 2)).as("s1 has lapsed").isInstanceOf(TenantLimiter.Allowed.class);
  }
}
