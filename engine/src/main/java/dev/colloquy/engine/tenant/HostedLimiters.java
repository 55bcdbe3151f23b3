package dev.colloquy.engine.tenant;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * The limits of the tenants whose {@link TenantLimiter} entity runs on this node, as that entity holds
 * them: put here when it starts, removed when it stops. A request on this node takes its tokens from
 * them in place, under the same lock the entity takes, so it counts exactly as an ask would; a tenant
 * whose entity runs elsewhere is not here and is asked for ({@link #acquire}, the one way this node's
 * requests reach a tenant's limits). (Sharding never passivates the entity, so requests that bypass its
 * mailbox do not let it be stopped for idleness.)
 */
public final class HostedLimiters implements Extension {

  private static final ExtensionId<HostedLimiters> ID = new ExtensionId<>() {
    @Override
    public HostedLimiters createExtension(ActorSystem<?> system) {
      return new HostedLimiters(system);
    }
  };

  private final ActorSystem<?> system;
  private final ConcurrentHashMap<String, TenantLimiter.Limits> byTenant = new ConcurrentHashMap<>();

  private HostedLimiters(ActorSystem<?> system) {
    this.system = system;
  }

  public static HostedLimiters get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /**
   * The verdict on {@code takes} (and a stream slot when {@code streamId} is set): taken in place while the
   * tenant's entity runs on this node, asked of the entity, wherever it runs, otherwise.
   */
  public CompletionStage<TenantLimiter.Verdict> acquire(String tenantId, List<TenantLimiter.Take> takes,
      String streamId, int maxStreams, Duration askTimeout) {
    Optional<TenantLimiter.Verdict> here = acquireHere(tenantId, takes, streamId, maxStreams);
    return here.isPresent() ? CompletableFuture.completedFuture(here.get())
        : ClusterSharding.get(system).entityRefFor(TenantLimiter.ENTITY_KEY, tenantId)
            .ask(replyTo -> new TenantLimiter.Acquire(takes, streamId, maxStreams, replyTo), askTimeout);
  }

  /** The verdict when the tenant's entity runs on this node; empty when it must be asked. */
  Optional<TenantLimiter.Verdict> acquireHere(String tenantId, List<TenantLimiter.Take> takes, String streamId,
      int maxStreams) {
    TenantLimiter.Limits limits = byTenant.get(tenantId);
    return limits == null ? Optional.empty() : Optional.of(limits.acquire(takes, streamId, maxStreams));
  }

  void hold(String tenantId, TenantLimiter.Limits limits) {
    byTenant.put(tenantId, limits);
  }

  /** {@code limits} stopped: the tenant is asked for again, unless a later incarnation already holds it. */
  void release(String tenantId, TenantLimiter.Limits limits) {
    byTenant.remove(tenantId, limits);
  }
}
