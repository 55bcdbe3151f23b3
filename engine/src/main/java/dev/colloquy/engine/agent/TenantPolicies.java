package dev.colloquy.engine.agent;

import dev.colloquy.engine.tenant.TenantConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The configuration a tenant's turns follow: persona, topics, escalation thresholds and webhook. */
public interface TenantPolicies {

  CompletionStage<TenantConfig> config(String tenantId);

  /** The same configuration for every tenant. */
  static TenantPolicies fixed(TenantConfig config) {
    return tenantId -> CompletableFuture.completedFuture(config);
  }
}
