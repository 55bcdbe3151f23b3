package dev.colloquy.http.auth;

import java.util.Optional;

/**
 * Who a request acts for: a tenant (through one of its keys), a user of a tenant (a JWT, or a key
 * with {@code X-User-Id}), or the operator. The operator belongs to no tenant: {@code tenantId} is
 * null only for {@link Kind#ADMIN}.
 */
public record Principal(String tenantId, Optional<String> userId, Kind kind) {

  public enum Kind { TENANT_KEY, USER, ADMIN }

  static Principal tenantKey(String tenantId) {
    return new Principal(tenantId, Optional.empty(), Kind.TENANT_KEY);
  }

  static Principal user(String tenantId, String userId) {
    return new Principal(tenantId, Optional.of(userId), Kind.USER);
  }

  static Principal admin() {
    return new Principal(null, Optional.empty(), Kind.ADMIN);
  }
}
