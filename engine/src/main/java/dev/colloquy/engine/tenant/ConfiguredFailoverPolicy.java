package dev.colloquy.engine.tenant;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each tenant's {@code continue_after_failover}, read from its {@link TenantConfiguration} when a
 * session finds a turn its crashed node left running. When the configuration does not answer in
 * time the turn ends as interrupted: the safe choice, since the client is told and can ask again.
 */
public final class ConfiguredFailoverPolicy implements FailoverPolicy {

  private static final Logger log = LoggerFactory.getLogger(ConfiguredFailoverPolicy.class);

  private final TenantConfigReader configs;

  public ConfiguredFailoverPolicy(ActorSystem<?> system, Duration askTimeout) {
    this.configs = new TenantConfigReader(system, askTimeout);
  }

  @Override
  public CompletionStage<Boolean> continuesTurns(String tenantId) {
    return configs.current(tenantId)
        .thenApply(current -> Boolean.TRUE.equals(current.config().continueAfterFailover()))
        .exceptionally(failure -> {
          log.warn("The configuration of tenant {} did not answer ({}); the interrupted turn ends as INTERRUPTED",
              tenantId, failure.getClass().getName());
          return false;
        });
  }
}
