package dev.colloquy.engine.agent;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** Where a tenant's webhooks go and the secret that signs them, as its configuration says now. */
public interface WebhookTargets {

  record Target(String url, String secret) {
    @Override
    public String toString() {
      return "Target[url=" + url + ", secret=***]";
    }
  }

  /** Empty when the tenant has no webhook URL (or no secret yet). */
  CompletionStage<Optional<Target>> target(String tenantId);
}
