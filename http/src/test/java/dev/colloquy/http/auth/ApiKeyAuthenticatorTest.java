package dev.colloquy.http.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.persistence.tenant.ApiKeyStore;
import dev.colloquy.persistence.tenant.ApiKeys;
import dev.colloquy.persistence.tenant.StoredKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApiKeyAuthenticatorTest {

  private static final String KEY_ID = "0123456789abcdef";
  private static final String SECRET = "ab".repeat(32);
  private static final String KEY = ApiKeys.PREFIX + KEY_ID + "_" + SECRET;

  /** A key store whose database can be taken away, and whose key can be revoked. */
  private static final class Store implements ApiKeyStore {
    boolean down;
    boolean revoked;
    int reads;

    @Override
    public Optional<StoredKey> findKey(String id) {
      reads++;
      if (down) {
        throw new IllegalStateException("connection refused");
      }
      return id.equals(KEY_ID) ? Optional.of(new StoredKey(KEY_ID, "t1", ApiKeys.sha256(SECRET), revoked))
          : Optional.empty();
    }

    @Override
    public void markUsed(String id, Instant at) {}
  }

  private static final class MovableClock extends Clock {
    Instant now = Instant.parse("2026-11-24T00:00:00Z");

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final Store store = new Store();
  private final MovableClock clock = new MovableClock();
  private final ApiKeyAuthenticator keys = new ApiKeyAuthenticator(store, Runnable::run, clock);

  @Test
  void aRevocationIsSeenOnceTheCachedRowHasExpired() {
    assertThat(keys.authenticate(KEY, Optional.empty())).isInstanceOf(Outcome.Authenticated.class);
    store.revoked = true;
    clock.now = clock.now.plus(ApiKeyAuthenticator.CACHE_TTL).plusMillis(1);
    assertThat(keys.authenticate(KEY, Optional.empty())).isEqualTo(Outcome.refused(Refusal.REVOKED_KEY));
    assertThat(ApiKeyAuthenticator.CACHE_TTL).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aKeySeenBeforeTheDatabaseWentDownStillWorksWhileItIsDown() {
    assertThat(keys.authenticate(KEY, Optional.empty())).isInstanceOf(Outcome.Authenticated.class);
    store.down = true;
    clock.now = clock.now.plus(Duration.ofMinutes(1));
    assertThat(keys.authenticate(KEY, Optional.empty())).isInstanceOf(Outcome.Authenticated.class);
    assertThat(store.reads).as("the database was asked again").isEqualTo(2);
  }

  @Test
  void aKeySeenWithinTheCachesLifeIsCheckedWithoutReadingTheStore() {
    assertThat(keys.authenticateCached(KEY, Optional.empty())).as("never read: the store must be asked").isEmpty();
    assertThat(keys.authenticate(KEY, Optional.empty())).isInstanceOf(Outcome.Authenticated.class);

    assertThat(keys.authenticateCached(KEY, Optional.of("u1"))).get()
        .isEqualTo(Outcome.authenticated(Principal.keyUser("t1", KEY_ID, "u1")));
    assertThat(keys.authenticateCached(ApiKeys.PREFIX + KEY_ID + "_" + "cd".repeat(32), Optional.empty()))
        .as("a wrong secret for a cached key").contains(Outcome.refused(Refusal.WRONG_SECRET));
    assertThat(keys.authenticateCached(ApiKeys.PREFIX + "nonsense", Optional.empty())).contains(Outcome.refused(Refusal.MALFORMED));
    assertThat(store.reads).isEqualTo(1);

    clock.now = clock.now.plus(ApiKeyAuthenticator.CACHE_TTL).plusMillis(1);
    assertThat(keys.authenticateCached(KEY, Optional.empty())).as("expired: the store must be asked again").isEmpty();
  }

  @Test
  void aKeyNeverSeenIsNeitherLetInNorRefusedWhileTheDatabaseIsDown() {
    store.down = true;
    assertThat(keys.authenticate(KEY, Optional.empty())).isInstanceOf(Outcome.Unavailable.class);
  }
}
