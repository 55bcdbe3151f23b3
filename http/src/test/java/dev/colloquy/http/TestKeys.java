package dev.colloquy.http;

import dev.colloquy.config.AuthSettings;
import dev.colloquy.http.auth.Authentication;
import dev.colloquy.persistence.tenant.ApiKeyStore;
import dev.colloquy.persistence.tenant.ApiKeys;
import dev.colloquy.persistence.tenant.StoredKey;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.Executor;

/** One real API key of one tenant, kept (hashed, as the database would) in memory. */
final class TestKeys implements ApiKeyStore {

  private final String tenantId;
  private final String keyId;
  private final String secret;

  TestKeys(String tenantId) {
    this.tenantId = tenantId;
    this.keyId = random(8);
    this.secret = random(32);
  }

  String apiKey() {
    return ApiKeys.PREFIX + keyId + "_" + secret;
  }

  Authentication authentication(Executor blocking) {
    AuthSettings noJwt = new AuthSettings(Optional.empty(), Optional.empty(), "authenticated", Optional.empty(),
        "tenant_id", Optional.empty());
    return new Authentication(this, noJwt, Optional.empty(), Optional::of, blocking);
  }

  @Override
  public Optional<StoredKey> findKey(String id) {
    return id.equals(keyId) ? Optional.of(new StoredKey(keyId, tenantId, ApiKeys.sha256(secret), false))
        : Optional.empty();
  }

  @Override
  public void markUsed(String id, Instant at) {}

  private static String random(int bytes) {
    byte[] value = new byte[bytes];
    new SecureRandom().nextBytes(value);
    return HexFormat.of().formatHex(value);
  }
}
