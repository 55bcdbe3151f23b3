package dev.colloquy.engine.tenant;

import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.model.ModelCatalog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each tenant's choice of models, read from its {@link TenantConfiguration} when a turn names none, so
 * a change applies to the next turn on every node. A turn is not refused for want of its tenant's
 * configuration: when the entity does not answer in time, the server's choice applies.
 */
public final class ConfiguredModelChoice implements ModelChoice {

  private static final Logger log = LoggerFactory.getLogger(ConfiguredModelChoice.class);

  private final TenantConfigReader configs;
  private final ModelCatalog catalog;

  public ConfiguredModelChoice(ActorSystem<?> system, Duration askTimeout, ModelCatalog catalog) {
    this.configs = new TenantConfigReader(system, askTimeout);
    this.catalog = catalog;
  }

  @Override
  public CompletionStage<List<String>> forTurn(String tenantId, List<String> requested) {
    if (!requested.isEmpty()) {
      return CompletableFuture.completedFuture(requested);
    }
    return config(tenantId).thenApply(config -> forTurn(config, catalog));
  }

  @Override
  public CompletionStage<List<String>> forFanOut(String tenantId, List<String> requested) {
    if (!requested.isEmpty()) {
      return CompletableFuture.completedFuture(requested);
    }
    return config(tenantId).thenApply(config -> forFanOut(config, catalog));
  }

  /** The tenant's default model; the server's when the tenant has none (its configuration did not answer). */
  static List<String> forTurn(TenantConfig config, ModelCatalog catalog) {
    return List.of(config != null && config.defaultModel() != null ? config.defaultModel() : catalog.defaultModel());
  }

  /** The tenant's fan-out set; when it names none, every provider's first model. */
  static List<String> forFanOut(TenantConfig config, ModelCatalog catalog) {
    return config != null && config.fanOutModels() != null && !config.fanOutModels().isEmpty()
        ? config.fanOutModels()
        : catalog.oneModelPerProvider(LlmSettings.OFFLINE_MODEL);
  }

  /** The tenant's configuration, or null when it did not answer in time. */
  private CompletionStage<TenantConfig> config(String tenantId) {
    return configs.current(tenantId)
        .thenApply(current -> current.config())
        .exceptionally(failure -> {
          log.warn("The configuration of tenant {} did not answer ({}); the turn runs the server's models",
              tenantId, failure.getClass().getName());
          return null;
        });
  }
}
