package dev.colloquy.engine.tenant;

import dev.colloquy.engine.CborSerializable;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
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

  /**
   * The problems of the configuration {@code change} would lead to; empty when it may be applied. The
   * server's own idle timeout is never one of them, though an operator may set it below what a tenant
   * may choose: a tenant that keeps it must still be able to change its other fields.
   */
  List<ConfigProblem> problemsOf(TenantConfig change, TenantConfig defaults, Set<String> models) {
    TenantConfig result = effective(defaults).overlay(change);
    boolean serverIdleTimeout = Objects.equals(result.idleTimeoutSeconds(), defaults.idleTimeoutSeconds());
    return result.problems(models).stream()
        .filter(problem -> !(serverIdleTimeout && problem.field().equals(TenantConfig.IDLE_TIMEOUT_FIELD)))
        .toList();
  }

  /**
   * A secret is issued once, the first time a webhook URL (escalation or data) is set; it stays when
   * the URLs change, and signs the calls of both.
   */
  boolean needsSecret(TenantConfig change, TenantConfig defaults) {
    TenantConfig result = effective(defaults).overlay(change);
    return webhookSecret == null && (result.hasWebhook() || result.hasDataWebhook());
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
