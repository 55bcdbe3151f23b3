package dev.colloquy.engine.tenant;

import dev.colloquy.engine.session.IdleTimeouts;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each tenant's idle timeout, read from its {@link TenantConfiguration} when the reaper checks, so a
 * change applies at the next check. A tenant whose configuration does not answer is left for the next
 * check rather than closed on the server's default, which may be shorter than what it chose.
 */
public final class ConfiguredIdleTimeouts implements IdleTimeouts {

  private static final Logger log = LoggerFactory.getLogger(ConfiguredIdleTimeouts.class);

  private final TenantConfigReader configs;
  private final Duration shortest;

  /** {@code serverDefault} is the timeout of a tenant that set none (it may be below what a tenant may set). */
  public ConfiguredIdleTimeouts(ActorSystem<?> system, Duration askTimeout, Duration serverDefault) {
    this.configs = new TenantConfigReader(system, askTimeout);
    Duration tenantMinimum = Duration.ofSeconds(TenantConfig.MIN_IDLE_TIMEOUT_SECONDS);
    this.shortest = serverDefault.compareTo(tenantMinimum) < 0 ? serverDefault : tenantMinimum;
  }

  @Override
  public CompletionStage<Duration> idleTimeout(String tenantId) {
    return configs.current(tenantId)
        .thenApply(current -> Duration.ofSeconds(current.config().idleTimeoutSeconds()))
        .whenComplete((timeout, failure) -> {
          if (failure != null) {
            log.warn("The configuration of tenant {} did not answer ({}); its idle sessions wait for the next check",
                tenantId, failure.getClass().getName());
          }
        });
  }

  @Override
  public Duration shortest() {
    return shortest;
  }
}
