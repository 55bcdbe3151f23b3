package dev.colloquy.engine.agent;

import dev.colloquy.engine.tenant.TenantConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The configuration a tenant's turns follow: persona, topics, escalation thresholds and webhook. */
public interface TenantPolicies {

  CompletionStage<TenantConfig> config(String tenantId);

  /**
   * {@code policies} asked now, once, for {@code tenantId}: what every step of one turn reads (the
   * language step, then the router), so that the router finds the configuration already known instead
   * of asking for it again after the language step. Other tenants are asked as {@code policies} would.
   */
  static TenantPolicies once(TenantPolicies policies, String tenantId) {
    CompletionStage<TenantConfig> config = policies.config(tenantId);
    return asked -> asked.equals(tenantId) ? config : policies.config(asked);
  }

  /** The same configuration for every tenant. */
  static TenantPolicies fixed(TenantConfig config) {
    return tenantId -> CompletableFuture.completedFuture(config);
  }
}
