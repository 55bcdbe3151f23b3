package dev.colloquy.engine.agent;

import dev.colloquy.engine.tenant.TenantConfiguration;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;

/** A tenant's webhook URL and secret, asked of its {@link TenantConfiguration} at each delivery. */
public final class ConfiguredWebhookTargets implements WebhookTargets {

  private final ClusterSharding sharding;
  private final Duration askTimeout;

  public ConfiguredWebhookTargets(ActorSystem<?> system, Duration askTimeout) {
    this.sharding = ClusterSharding.get(system);
    this.askTimeout = askTimeout;
  }

  @Override
  public CompletionStage<Optional<Target>> target(String tenantId) {
    EntityRef<TenantConfiguration.Command> tenant = sharding.entityRefFor(TenantConfiguration.ENTITY_KEY, tenantId);
    return tenant.<TenantConfiguration.Reply>ask(TenantConfiguration.Get::new, askTimeout)
        .thenCompose(config -> tenant.<TenantConfiguration.Reply>ask(TenantConfiguration.GetWebhookSecret::new, askTimeout)
            .thenApply(secret -> {
              if (config instanceof TenantConfiguration.Current current && current.config().hasWebhook()
                  && secret instanceof TenantConfiguration.WebhookSecret signing && signing.secret() != null) {
                return Optional.of(new Target(current.config().escalationWebhookUrl(), signing.secret()));
              }
              return Optional.<Target>empty();
            }));
  }
}
