package dev.colloquy.http.auth;

import io.jsonwebtoken.security.Jwk;
import io.jsonwebtoken.security.JwkSet;
import io.jsonwebtoken.security.Jwks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Key;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public keys of a JWKS URL by key id. Fetched on first use and again when a token names an
 * unknown kid, but never more than once per {@link #MIN_REFRESH}: a flood of made-up kids cannot
 * turn into a flood of requests to the identity provider.
 */
final class JwksKeys {

  static final Duration MIN_REFRESH = Duration.ofMinutes(1);
  private static final Duration FETCH_TIMEOUT = Duration.ofSeconds(5);
  private static final Logger log = LoggerFactory.getLogger(JwksKeys.class);

  private final URI url;
  private final Clock clock;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(FETCH_TIMEOUT).build();
  private Map<String, Key> keys = Map.of();
  private Instant fetchedAt;

  JwksKeys(URI url, Clock clock) {
    this.url = url;
    this.clock = clock;
  }

  synchronized Optional<Key> key(String kid) {
    Key key = keys.get(kid);
    if (key == null && (fetchedAt == null || !fetchedAt.plus(MIN_REFRESH).isAfter(clock.instant()))) {
      refresh();
      key = keys.get(kid);
    }
    return Optional.ofNullable(key);
  }

  private void refresh() {
    fetchedAt = clock.instant();
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(url).timeout(FETCH_TIMEOUT).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        log.warn("JWKS fetch answered {}", response.statusCode());
        return;
      }
      JwkSet set = Jwks.setParser().ignoreUnsupported(true).build().parse(response.body());
      Map<String, Key> fresh = new HashMap<>();
      for (Jwk<?> jwk : set.getKeys()) {
        if (jwk.getId() != null) {
          fresh.put(jwk.getId(), jwk.toKey());
        }
      }
      keys = Map.copyOf(fresh);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.warn("JWKS fetch failed: {}", e.getClass().getName());
    }
  }
}
