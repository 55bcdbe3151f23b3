package dev.colloquy.http.auth;

import dev.colloquy.persistence.tenant.ApiKeyStore;
import dev.colloquy.persistence.tenant.ApiKeys;
import dev.colloquy.persistence.tenant.KeyKind;
import dev.colloquy.persistence.tenant.StoredKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tenant API keys. A key's row is cached for at most {@link #CACHE_TTL}, so a revocation on any node
 * (they share the database) is refused everywhere within that time, without a query per request.
 * {@code last_used_at} is written at most once per {@link #USE_RESOLUTION} per key.
 */
final class ApiKeyAuthenticator {

  static final Duration CACHE_TTL = Duration.ofSeconds(4);

  /**
   * The visitor id a public key's requests carry in {@code X-User-Id}: random, made by the widget per
   * browser tab, so one visitor cannot guess another's and reach their session.
   */
  static final Pattern VISITOR_ID = Pattern.compile("[A-Za-z0-9_-]{16,64}");
  static final Duration USE_RESOLUTION = Duration.ofMinutes(1);

  /** How long a request waits for the key store before a key seen before is taken as it was. */
  static final Duration STORE_WAIT = Duration.ofSeconds(2);

  private static final Logger log = LoggerFactory.getLogger(ApiKeyAuthenticator.class);

  private record Cached(Optional<StoredKey> key, Instant until) {}

  private final ApiKeyStore store;
  private final Executor background;
  private final Clock clock;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();
  private final Map<String, Instant> lastMarked = new ConcurrentHashMap<>();

  ApiKeyAuthenticator(ApiKeyStore store, Executor background, Clock clock) {
    this.store = store;
    this.background = background;
    this.clock = clock;
  }

  /** The store cannot be read and the key is not one this node has seen. */
  private static final class StoreUnavailable extends Exception {
    StoreUnavailable(Throwable cause) {
      super("The key store cannot be read", cause, false, false);
    }
  }

  /** Blocks on the store when the key is not cached. */
  Outcome authenticate(String token, Optional<String> userId) {
    Optional<ApiKeys.Parsed> parsed = ApiKeys.parse(token);
    if (parsed.isEmpty()) {
      return Outcome.refused(Refusal.MALFORMED);
    }
    Optional<StoredKey> stored;
    try {
      stored = lookup(parsed.get().keyId());
    } catch (StoreUnavailable unavailable) {
      log.warn("The key store cannot be read ({}); a key not seen before cannot be checked",
          unavailable.getCause().getClass().getName());
      return new Outcome.Unavailable();
    }
    return checked(parsed.get(), stored, userId);
  }

  /**
   * The outcome without blocking when it needs no read of the store (a malformed token, or a key whose
   * row is cached and fresh); empty when {@link #authenticate} must read it.
   */
  Optional<Outcome> authenticateCached(String token, Optional<String> userId) {
    Optional<ApiKeys.Parsed> parsed = ApiKeys.parse(token);
    if (parsed.isEmpty()) {
      return Optional.of(Outcome.refused(Refusal.MALFORMED));
    }
    Cached cached = cache.get(parsed.get().keyId());
    return fresh(cached, clock.instant()) ? Optional.of(checked(parsed.get(), cached.key(), userId)) : Optional.empty();
  }

  private Outcome checked(ApiKeys.Parsed parsed, Optional<StoredKey> stored, Optional<String> userId) {
    if (stored.isEmpty()) {
      return Outcome.refused(Refusal.UNKNOWN_KEY);
    }
    if (!ApiKeys.matches(parsed.secret(), stored.get().secretSha256())) {
      return Outcome.refused(Refusal.WRONG_SECRET);
    }
    if (stored.get().revoked()) {
      return Outcome.refused(Refusal.REVOKED_KEY);
    }
    if (stored.get().kind() != parsed.kind()) {
      return Outcome.refused(Refusal.WRONG_KIND);
    }
    String tenantId = stored.get().tenantId();
    String keyId = stored.get().keyId();
    if (stored.get().kind() == KeyKind.PUBLIC) {
      if (userId.isEmpty() || !VISITOR_ID.matcher(userId.get()).matches()) {
        return Outcome.refused(Refusal.INVALID_VISITOR_ID);
      }
      markUsed(keyId);
      return Outcome.authenticated(Principal.visitor(tenantId, keyId, userId.get()));
    }
    markUsed(keyId);
    return userId.map(user -> Outcome.authenticated(Principal.keyUser(tenantId, keyId, user)))
        .orElseGet(() -> Outcome.authenticated(Principal.tenantKey(tenantId, keyId)));
  }

  private Optional<StoredKey> lookup(String keyId) throws StoreUnavailable {
    Instant now = clock.instant();
    Cached cached = cache.get(keyId);
    if (fresh(cached, now)) {
      return cached.key();
    }
    Optional<StoredKey> key;
    try {
      key = CompletableFuture.supplyAsync(() -> store.findKey(keyId), background)
          .get(STORE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException unreachable) {
      // While the database cannot be read no key can be revoked either (revocation writes to it), so a
      // key this node saw before is still what the database holds: keep serving it.
      if (cached != null) {
        return cached.key();
      }
      throw new StoreUnavailable(unreachable);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailable(interrupted);
    }
    cache.put(keyId, new Cached(key, now.plus(CACHE_TTL)));
    if (cache.size() > 100_000) {
      // Probes with random key ids must not grow the cache without bound.
      cache.values().removeIf(entry -> !entry.until().isAfter(now));
    }
    return key;
  }

  /** Whether {@code cached} is within its life, so that its row stands for the store's without a read. */
  private static boolean fresh(Cached cached, Instant now) {
    return cached != null && cached.until().isAfter(now);
  }

  private void markUsed(String keyId) {
    Instant now = clock.instant();
    Instant previous = lastMarked.get(keyId);
    if (previous != null && previous.plus(USE_RESOLUTION).isAfter(now)) {
      return;
    }
    if (previous == null ? lastMarked.putIfAbsent(keyId, now) != null : !lastMarked.replace(keyId, previous, now)) {
      return;
    }
    background.execute(() -> {
      try {
        store.markUsed(keyId, now);
      } catch (RuntimeException e) {
        log.warn("Could not record the use of key {}: {}", keyId, e.getClass().getName());
      }
    });
  }
}
