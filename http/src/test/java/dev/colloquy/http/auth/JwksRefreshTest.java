package dev.colloquy.http.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.config.AuthSettings;
import io.jsonwebtoken.Jwts;
import java.net.URI;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RS256/ES256 keys from a JWKS URL: fetched on first use, again on an unknown kid (a rotation), but
 * never more than once a minute however many unknown kids arrive.
 */
class JwksRefreshTest {

  private final JwksServer jwks = JwksServer.start();
  private final MovableClock clock = new MovableClock(Instant.now());
  private final JwtAuthenticator verifier = new JwtAuthenticator(
      new AuthSettings(Optional.empty(), Optional.of(URI.create(jwks.url())), "authenticated", Optional.empty(),
          "tenant_id", Optional.of("tenant-1")),
      Optional::of, clock);

  @AfterEach
  void stop() {
    jwks.close();
  }

  @Test
  void rs256AndEs256AreAcceptedByKid() {
    KeyPair rsa = Jwts.SIG.RS256.keyPair().build();
    KeyPair ec = Jwts.SIG.ES256.keyPair().build();
    jwks.publish("rsa-1", rsa);
    jwks.publish("ec-1", ec);

    assertThat(verifier.authenticate(token("rsa-1", rsa, Jwts.SIG.RS256))).isInstanceOf(Outcome.Authenticated.class);
    assertThat(verifier.authenticate(token("ec-1", ec, Jwts.SIG.ES256))).isInstanceOf(Outcome.Authenticated.class);
    assertThat(jwks.fetches()).isEqualTo(1);
  }

  @Test
  void aKeyOfTheWrongTypeForItsKidIsRefused() {
    KeyPair rsa = Jwts.SIG.RS256.keyPair().build();
    KeyPair ec = Jwts.SIG.ES256.keyPair().build();
    jwks.publish("rsa-1", rsa);

    assertThat(verifier.authenticate(token("rsa-1", ec, Jwts.SIG.ES256))).isInstanceOf(Outcome.Refused.class);
    assertThat(verifier.authenticate(token(null, rsa, Jwts.SIG.RS256))).isInstanceOf(Outcome.Refused.class);
  }

  @Test
  void unknownKidsRefreshAtMostOncePerMinuteAndARotatedKeyIsFound() {
    KeyPair first = Jwts.SIG.RS256.keyPair().build();
    jwks.publish("rsa-1", first);
    assertThat(verifier.authenticate(token("rsa-1", first, Jwts.SIG.RS256))).isInstanceOf(Outcome.Authenticated.class);
    assertThat(jwks.fetches()).isEqualTo(1);

    for (int i = 0; i < 50; i++) {
      assertThat(verifier.authenticate(token(UUID.randomUUID().toString(), first, Jwts.SIG.RS256)))
          .isInstanceOf(Outcome.Refused.class);
    }
    assertThat(jwks.fetches()).as("within the minute of the first fetch").isEqualTo(1);

    KeyPair rotated = Jwts.SIG.RS256.keyPair().build();
    jwks.publish("rsa-2", rotated);
    clock.advance(Duration.ofSeconds(61));
    assertThat(verifier.authenticate(token("rsa-2", rotated, Jwts.SIG.RS256))).isInstanceOf(Outcome.Authenticated.class);
    assertThat(jwks.fetches()).as("one refresh for the unknown kid").isEqualTo(2);

    for (int i = 0; i < 50; i++) {
      verifier.authenticate(token(UUID.randomUUID().toString(), rotated, Jwts.SIG.RS256));
    }
    assertThat(verifier.authenticate(token("rsa-1", first, Jwts.SIG.RS256))).isInstanceOf(Outcome.Authenticated.class);
    assertThat(jwks.fetches()).isEqualTo(2);

    clock.advance(Duration.ofSeconds(61));
    verifier.authenticate(token("unknown", rotated, Jwts.SIG.RS256));
    verifier.authenticate(token("unknown-too", rotated, Jwts.SIG.RS256));
    assertThat(jwks.fetches()).isEqualTo(3);
  }

  private String token(String kid, KeyPair pair, io.jsonwebtoken.security.SignatureAlgorithm algorithm) {
    var builder = Jwts.builder();
    if (kid != null) {
      builder.header().keyId(kid);
    }
    return builder.subject("user-1").audience().add("authenticated").and()
        .issuedAt(Date.from(clock.instant()))
        .expiration(Date.from(clock.instant().plus(Duration.ofHours(1))))
        .signWith(pair.getPrivate(), algorithm)
        .compact();
  }

  /** A clock a test moves forward. */
  private static final class MovableClock extends Clock {
    private volatile Instant now;

    MovableClock(Instant start) {
      this.now = start;
    }

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
