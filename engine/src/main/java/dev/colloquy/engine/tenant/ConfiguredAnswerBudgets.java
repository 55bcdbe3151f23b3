package dev.colloquy.engine.tenant;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each tenant's {@code max_tokens} and instructions, read from its {@link TenantConfiguration} when a
 * turn starts, so a change applies to the next turn on every node. A turn is not failed for want of
 * its tenant's configuration: when the entity does not answer in time, the server's default
 * {@code max_tokens} applies and the tenant's instructions are left out.
 */
public final class ConfiguredAnswerBudgets implements AnswerBudgets, TenantInstructions {

  private static final Logger log = LoggerFactory.getLogger(ConfiguredAnswerBudgets.class);

  private final TenantConfigReader configs;
  private final int serverDefault;

  public ConfiguredAnswerBudgets(ActorSystem<?> system, Duration askTimeout, int serverDefault) {
    this.configs = new TenantConfigReader(system, askTimeout);
    this.serverDefault = serverDefault;
  }

  @Override
  public CompletionStage<Integer> maxTokens(String tenantId) {
    return config(tenantId)
        .thenApply(config -> config.map(TenantConfig::maxTokens).orElse(serverDefault))
        .exceptionally(failure -> {
          log.warn("The configuration of tenant {} did not answer ({}); the turn sends the default max_tokens",
              tenantId, failure.getClass().getName());
          return serverDefault;
        });
  }

  @Override
  public CompletionStage<Optional<String>> of(String tenantId) {
    return config(tenantId)
        .thenApply(config -> config.flatMap(TenantInstructions::from))
        .exceptionally(failure -> {
          log.warn("The configuration of tenant {} did not answer ({}); the turn goes without its instructions",
              tenantId, failure.getClass().getName());
          return Optional.empty();
        });
  }

  private CompletionStage<Optional<TenantConfig>> config(String tenantId) {
    return configs.current(tenantId)
        .thenApply(current -> Optional.of(current.config()));
  }
}
