package dev.colloquy.persistence.tenant;

/**
 * What is kept of an API key: its tenant, the SHA-256 of its secret and its kind; {@code revoked} keys
 * open nothing.
 */
public record StoredKey(String keyId, String tenantId, byte[] secretSha256, boolean revoked, KeyKind kind) {

  /** A secret key. */
  public StoredKey(String keyId, String tenantId, byte[] secretSha256, boolean revoked) {
    this(keyId, tenantId, secretSha256, revoked, KeyKind.SECRET);
  }
}
