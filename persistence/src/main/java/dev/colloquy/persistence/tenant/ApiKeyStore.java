package dev.colloquy.persistence.tenant;

import java.time.Instant;
import java.util.Optional;

/** Where authentication looks keys up. Both calls block: call them off the request threads. */
public interface ApiKeyStore {

  Optional<StoredKey> findKey(String keyId);

  /** Records that the key was used; callers batch this, it is not a write per request. */
  void markUsed(String keyId, Instant at);
}
