package dev.colloquy.engine.tenant;

import dev.colloquy.engine.CborSerializable;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * What a tenant has configured: the accumulated changes (fields it never set follow the server's
 * defaults, so a changed default reaches it), how many changes there were, and the webhook signing
 * secret once one was issued.
 */
public record TenantConfigState(TenantConfig changes, long version, Instant updatedAt, String webhookSecret)
    implements CborSerializable {

  static TenantConfigState empty() {
    return new TenantConfigState(TenantConfig.NO_CHANGE, 0, null, null);
  }

  TenantConfig effective(TenantConfig defaults) {
    return defaults.overlay(changes);
  }

  /** The problems of the configuration {@code change} would lead to; empty when it may be applied. */
  List<ConfigProblem> problemsOf(TenantConfig change, TenantConfig defaults, Set<String> models) {
    return effective(defaults).overlay(change).problems(models);
  }

  /** A secret is issued once, the first time a webhook URL is set; it stays when the URL changes. */
  boolean needsSecret(TenantConfig change, TenantConfig defaults) {
    return webhookSecret == null && effective(defaults).overlay(change).hasWebhook();
  }

  TenantConfigState changed(TenantConfig change, Instant at) {
    return new TenantConfigState(changes.overlay(change), version + 1, at, webhookSecret);
  }

  TenantConfigState withSecret(String secret) {
    return new TenantConfigState(changes, version, updatedAt, secret);
  }

  /** Never prints the secret. */
  @Override
  public String toString() {
    return "TenantConfigState[version=" + version + ", updatedAt=" + updatedAt + ", changes=" + changes
        + ", webhookSecret=" + (webhookSecret == null ? "(none)" : "***") + "]";
  }
}
