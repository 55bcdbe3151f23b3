package dev.colloquy.engine.agent;

import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantConfigReader;
import dev.colloquy.engine.tenant.TenantConfiguration;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each tenant's configuration read from its {@link TenantConfiguration} when a turn starts, so that
 * a change applies to the next turn on every node. A turn is not failed for want of it: when the
 * entity does not answer in time, the server's defaults apply (and with them no escalation, since
 * the defaults have no webhook).
 */
public final class ConfiguredPolicies implements TenantPolicies {

  private static final Logger log = LoggerFactory.getLogger(ConfiguredPolicies.class);

  private final TenantConfigReader configs;
  private final TenantConfig defaults;

  public ConfiguredPolicies(ActorSystem<?> system, Duration askTimeout, TenantConfig defaults) {
    this.configs = new TenantConfigReader(system, askTimeout);
    this.defaults = defaults;
  }

  @Override
  public CompletionStage<TenantConfig> config(String tenantId) {
    return configs.current(tenantId)
        .thenApply(current -> current.config())
        .exceptionally(failure -> {
          log.warn("The configuration of tenant {} did not answer ({}); the turn follows the defaults",
              tenantId, failure.getClass().getName());
          return defaults;
        });
  }
}
