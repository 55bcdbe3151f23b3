package dev.colloquy.http.tenant;

import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantConfigReader;
import dev.colloquy.engine.tenant.TenantConfiguration;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.japi.function.Function;

/**
 * How the routes, limits and CORS read a tenant's configuration: always the entity's own state, read
 * in place when the entity runs on this node ({@link TenantConfigReader}), never a copy.
 */
public final class TenantConfigs {

  private final ClusterSharding sharding;
  private final Duration askTimeout;
  private final TenantConfigReader reader;

  public TenantConfigs(ActorSystem<?> system, Duration askTimeout) {
    this.sharding = ClusterSharding.get(system);
    this.askTimeout = askTimeout;
    this.reader = new TenantConfigReader(system, askTimeout);
  }

  public CompletionStage<TenantConfiguration.Current> current(String tenantId) {
    return reader.current(tenantId);
  }

  CompletionStage<TenantConfiguration.Reply> update(String tenantId, TenantConfig change) {
    return ask(tenantId, replyTo -> new TenantConfiguration.Update(change, replyTo));
  }

  private CompletionStage<TenantConfiguration.Reply> ask(String tenantId,
      Function<ActorRef<TenantConfiguration.Reply>, TenantConfiguration.Command> command) {
    return sharding.entityRefFor(TenantConfiguration.ENTITY_KEY, tenantId)
        .<TenantConfiguration.Reply>ask(command::apply, askTimeout);
  }
}
