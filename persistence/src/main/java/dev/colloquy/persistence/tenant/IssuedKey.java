package dev.colloquy.persistence.tenant;

/** A key just issued: the only moment its full text {@code ck_<key id>_<secret>} exists outside the client. */
public record IssuedKey(String tenantId, String keyId, String apiKey) {

  /** Never prints the key. */
  @Override
  public String toString() {
    return "IssuedKey[tenantId=" + tenantId + ", keyId=" + keyId + "]";
  }
}
