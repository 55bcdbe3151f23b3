package dev.colloquy.engine.agent;

import dev.colloquy.engine.tenant.TenantConfiguration;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/** A tenant's webhook secret, asked of its {@link TenantConfiguration} at each call. */
public final class ConfiguredTenantSecrets implements TenantSecrets {

  private final ClusterSharding sharding;
  private final Duration askTimeout;

  public ConfiguredTenantSecrets(ActorSystem<?> system, Duration askTimeout) {
    this.sharding = ClusterSharding.get(system);
    this.askTimeout = askTimeout;
  }

  @Override
  public CompletionStage<Optional<String>> webhookSecret(String tenantId) {
    return sharding.entityRefFor(TenantConfiguration.ENTITY_KEY, tenantId)
        .<TenantConfiguration.Reply>ask(TenantConfiguration.GetWebhookSecret::new, askTimeout)
        .thenApply(reply -> reply instanceof TenantConfiguration.WebhookSecret signing
            ? Optional.ofNullable(signing.secret()) : Optional.empty());
  }
}
