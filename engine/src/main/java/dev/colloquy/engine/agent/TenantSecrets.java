package dev.colloquy.engine.agent;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The secret that signs a tenant's webhooks (escalation and data lookups), as its configuration holds it. */
public interface TenantSecrets {

  /** Empty while the tenant has none: it set no webhook URL yet. */
  CompletionStage<Optional<String>> webhookSecret(String tenantId);

  /** No tenant has a secret: calls go unsigned. */
  static TenantSecrets none() {
    return tenantId -> CompletableFuture.completedFuture(Optional.empty());
  }
}
