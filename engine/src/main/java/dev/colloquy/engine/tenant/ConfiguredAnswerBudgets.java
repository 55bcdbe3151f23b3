package dev.colloquy.engine.tenant;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each tenant's {@code max_tokens}, read from its {@link TenantConfiguration} when a turn starts, so a
 * change applies to the next turn on every node. A turn is not failed for want of its tenant's
 * configuration: when the entity does not answer in time, the server's default applies.
 */
public final class ConfiguredAnswerBudgets implements AnswerBudgets {

  private static final Logger log = LoggerFactory.getLogger(ConfiguredAnswerBudgets.class);

  private final ClusterSharding sharding;
  private final Duration askTimeout;
  private final int serverDefault;

  public ConfiguredAnswerBudgets(ActorSystem<?> system, Duration askTimeout, int serverDefault) {
    this.sharding = ClusterSharding.get(system);
    this.askTimeout = askTimeout;
    this.serverDefault = serverDefault;
  }

  @Override
  public CompletionStage<Integer> maxTokens(String tenantId) {
    return sharding.entityRefFor(TenantConfiguration.ENTITY_KEY, tenantId)
        .<TenantConfiguration.Reply>ask(TenantConfiguration.Get::new, askTimeout)
        .thenApply(reply -> reply instanceof TenantConfiguration.Current current
            ? current.config().maxTokens() : serverDefault)
        .exceptionally(failure -> {
          log.warn("The configuration of tenant {} did not answer ({}); the turn sends the default max_tokens",
              tenantId, failure.getClass().getName());
          return serverDefault;
        });
  }
}
