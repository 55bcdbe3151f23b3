package dev.colloquy.persistence.tenant;

/** What is kept of an API key: its tenant and the SHA-256 of its secret; {@code revoked} keys open nothing. */
public record StoredKey(String keyId, String tenantId, byte[] secretSha256, boolean revoked) {}
