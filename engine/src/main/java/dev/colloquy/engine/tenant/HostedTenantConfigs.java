package dev.colloquy.engine.tenant;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The configurations of the tenants whose {@link TenantConfiguration} entity runs on this node, as
 * that entity holds them: written by the entity when it has recovered and after each change it has
 * journaled (before it replies to the change), removed when it stops. A reader on this node finds a
 * tenant here only while its entity lives here, so what it reads is the entity's own state and a
 * change applies to the next turn exactly as an ask would; a tenant whose entity runs elsewhere, or
 * is passivated, is not here and is asked for.
 */
public final class HostedTenantConfigs implements Extension {

  private static final ExtensionId<HostedTenantConfigs> ID = new ExtensionId<>() {
    @Override
    public HostedTenantConfigs createExtension(ActorSystem<?> system) {
      return new HostedTenantConfigs();
    }
  };

  /** The configuration and the entity incarnation that wrote it (a later incarnation's is never removed by an earlier one). */
  private record Hosted(Object entity, TenantConfiguration.Current current) {}

  private final ConcurrentHashMap<String, Hosted> byTenant = new ConcurrentHashMap<>();

  HostedTenantConfigs() {}

  public static HostedTenantConfigs get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /** The tenant's configuration when its entity runs on this node. */
  public Optional<TenantConfiguration.Current> find(String tenantId) {
    Hosted hosted = byTenant.get(tenantId);
    return hosted == null ? Optional.empty() : Optional.of(hosted.current());
  }

  /** {@code entity} holds {@code current} for {@code tenantId} now; never with a newly issued webhook secret. */
  void hold(String tenantId, Object entity, TenantConfiguration.Current current) {
    byTenant.put(tenantId, new Hosted(entity, new TenantConfiguration.Current(current.config(), current.version(),
        current.updatedAt(), null)));
  }

  /** {@code entity} stopped: its tenant is asked for again, unless a later incarnation already holds it. */
  void release(String tenantId, Object entity) {
    byTenant.computeIfPresent(tenantId, (tenant, hosted) -> hosted.entity() == entity ? null : hosted);
  }
}
