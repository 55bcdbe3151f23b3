package dev.colloquy.http.auth;

import java.util.Optional;

/**
 * Who a request acts for: a tenant (through one of its keys), a user of a tenant (a JWT, or a key
 * with {@code X-User-Id}), or the operator. The operator belongs to no tenant: {@code tenantId} is
 * null only for {@link Kind#ADMIN}. {@code credentialId} names what was presented, for the
 * per-credential limits: {@code key:} and the API key's id, or {@code jwt:} and the token's subject
 * (the prefixes keep a key id and a subject that happen to be equal apart), or {@code pub:} and a
 * public key's id; null for the operator.
 */
public record Principal(String tenantId, Optional<String> userId, Kind kind, String credentialId) {

  /**
   * {@code VISITOR}: a visitor of the tenant's web site, through the widget's public key; its user id is
   * {@code visitor:} and the id the widget gave it, so it can never act as one of the tenant's users.
   */
  public enum Kind { TENANT_KEY, USER, ADMIN, VISITOR }

  static final String VISITOR_PREFIX = "visitor:";

  static Principal tenantKey(String tenantId, String keyId) {
    return new Principal(tenantId, Optional.empty(), Kind.TENANT_KEY, "key:" + keyId);
  }

  static Principal keyUser(String tenantId, String keyId, String userId) {
    return new Principal(tenantId, Optional.of(userId), Kind.USER, "key:" + keyId);
  }

  static Principal jwtUser(String tenantId, String subject) {
    return new Principal(tenantId, Optional.of(subject), Kind.USER, "jwt:" + subject);
  }

  static Principal visitor(String tenantId, String keyId, String visitorId) {
    return new Principal(tenantId, Optional.of(VISITOR_PREFIX + visitorId), Kind.VISITOR, "pub:" + keyId);
  }

  static Principal admin() {
    return new Principal(null, Optional.empty(), Kind.ADMIN, null);
  }
}
