package dev.colloquy.persistence.tenant;

/**
 * A key just issued: the only moment its full text ({@code ck_<key id>_<secret>}, or {@code cpk_…} for a
 * public key) exists outside the client.
 */
public record IssuedKey(String tenantId, String keyId, String apiKey, KeyKind kind) {

  /** A secret key. */
  public IssuedKey(String tenantId, String keyId, String apiKey) {
    this(tenantId, keyId, apiKey, KeyKind.SECRET);
  }

  /** Never prints the key. */
  @Override
  public String toString() {
    return "IssuedKey[tenantId=" + tenantId + ", keyId=" + keyId + ", kind=" + kind + "]";
  }
}
