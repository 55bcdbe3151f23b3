package dev.colloquy.engine.tenant;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * How the turn's steps read a tenant's configuration: from this node's {@link HostedTenantConfigs}
 * when the tenant's entity runs here (no message at all), otherwise by asking the entity. Either way
 * the answer is the entity's current state, so a change applies to the next turn.
 */
public final class TenantConfigReader {

  private final ClusterSharding sharding;
  private final HostedTenantConfigs hosted;
  private final Duration askTimeout;

  public TenantConfigReader(ActorSystem<?> system, Duration askTimeout) {
    this.sharding = ClusterSharding.get(system);
    this.hosted = HostedTenantConfigs.get(system);
    this.askTimeout = askTimeout;
  }

  /** Fails when the entity does not answer within the ask timeout. */
  public CompletionStage<TenantConfiguration.Current> current(String tenantId) {
    Optional<TenantConfiguration.Current> here = hosted.find(tenantId);
    if (here.isPresent()) {
      return CompletableFuture.completedFuture(here.get());
    }
    return sharding.entityRefFor(TenantConfiguration.ENTITY_KEY, tenantId)
        .<TenantConfiguration.Reply>ask(TenantConfiguration.Get::new, askTimeout)
        .thenApply(reply -> (TenantConfiguration.Current) reply);
  }
}
