package dev.colloquy.engine.tenant;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each tenant's {@code continue_after_failover}, read from its {@link TenantConfiguration} when a
 * session finds a turn its crashed node left running. When the configuration does not answer in
 * time the turn ends as interrupted: the safe choice, since the client is told and can ask again.
 */
public final class ConfiguredFailoverPolicy implements FailoverPolicy {

  private static final Logger log = LoggerFactory.getLogger(ConfiguredFailoverPolicy.class);

  private final ClusterSharding sharding;
  private final Duration askTimeout;

  public ConfiguredFailoverPolicy(ActorSystem<?> system, Duration askTimeout) {
    this.sharding = ClusterSharding.get(system);
    this.askTimeout = askTimeout;
  }

  @Override
  public CompletionStage<Boolean> continuesTurns(String tenantId) {
    return sharding.entityRefFor(TenantConfiguration.ENTITY_KEY, tenantId)
        .<TenantConfiguration.Reply>ask(TenantConfiguration.Get::new, askTimeout)
        .thenApply(reply -> reply instanceof TenantConfiguration.Current current
            && Boolean.TRUE.equals(current.config().continueAfterFailover()))
        .exceptionally(failure -> {
          log.warn("The configuration of tenant {} did not answer ({}); the interrupted turn ends as INTERRUPTED",
              tenantId, failure.getClass().getName());
          return false;
        });
  }
}
