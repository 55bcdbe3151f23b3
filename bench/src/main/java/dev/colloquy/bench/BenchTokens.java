package dev.colloquy.bench;

import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.Keys;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * Signed JWTs as an identity provider issues them (audience {@code authenticated}, a subject, the
 * tenant claim, an expiry), valid for the whole benchmark: a client reuses its token until it expires.
 */
final class BenchTokens {

  static final String AUDIENCE = "authenticated";
  static final String SUBJECT = "bench-user";
  private static final Duration LIFETIME = Duration.ofHours(12);

  private BenchTokens() {}

  static String hs256(String secret, String tenant) {
    return Jwts.builder().subject(SUBJECT).audience().add(AUDIENCE).and().claim("tenant_id", tenant)
        .issuedAt(Date.from(Instant.now())).expiration(Date.from(Instant.now().plus(LIFETIME)))
        .signWith(Keys.hmacShaKeyFor(secret.getBytes(StandardCharsets.UTF_8)), Jwts.SIG.HS256).compact();
  }

  static String rs256(KeyPair pair, String kid, String tenant) {
    return Jwts.builder().header().keyId(kid).and().subject(SUBJECT).audience().add(AUDIENCE).and()
        .claim("tenant_id", tenant).issuedAt(Date.from(Instant.now()))
        .expiration(Date.from(Instant.now().plus(LIFETIME)))
        .signWith(pair.getPrivate(), Jwts.SIG.RS256).compact();
  }

  static KeyPair rsaKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("RSA is part of every JDK", e);
    }
  }
}
