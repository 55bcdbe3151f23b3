package dev.colloquy.http.auth;

import dev.colloquy.config.AuthSettings;
import io.jsonwebtoken.Claims;
import io.jsonwebtoken.ClaimJwtException;
import io.jsonwebtoken.ExpiredJwtException;
import io.jsonwebtoken.Header;
import io.jsonwebtoken.IncorrectClaimException;
import io.jsonwebtoken.JwsHeader;
import io.jsonwebtoken.JwtException;
import io.jsonwebtoken.JwtParser;
import io.jsonwebtoken.JwtParserBuilder;
import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.Locator;
import io.jsonwebtoken.MissingClaimException;
import io.jsonwebtoken.PrematureJwtException;
import io.jsonwebtoken.UnsupportedJwtException;
import io.jsonwebtoken.security.Keys;
import java.nio.charset.StandardCharsets;
import java.security.Key;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.crypto.SecretKey;

/**
 * JWTs: HS256 with the shared secret, RS256/ES256 with the JWKS keys. The algorithm a token names
 * only selects among the configured keys, each usable with its own algorithm alone: {@code none}, an
 * unknown algorithm, or HS256 over an RSA public key (the HS/RS confusion) find no key.
 */
final class JwtAuthenticator {

  static final int MAX_TOKEN_CHARS = 8 * 1024;
  static final long CLOCK_SKEW_SECONDS = 60;
  private static final Duration TENANT_CACHE_TTL = Duration.ofSeconds(4);
  private static final Set<String> ASYMMETRIC = Set.of("RS256", "ES256");
  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder BASE64URL_DECODER = Base64.getUrlDecoder();

  private record CachedTenant(Optional<String> tenantId, Instant until) {}

  private final AuthSettings settings;
  private final Optional<SecretKey> secret;
  private final Optional<JwksKeys> jwks;
  private final Function<String, Optional<String>> tenantIds;
  private final Clock clock;
  private final JwtParser parser;
  private final Map<String, CachedTenant> tenants = new ConcurrentHashMap<>();

  /** {@code tenantIds} maps a tenant's id or name to its id; it may block. */
  JwtAuthenticator(AuthSettings settings, Function<String, Optional<String>> tenantIds, Clock clock) {
    this.settings = settings;
    this.secret = settings.jwtSecret().map(s -> Keys.hmacShaKeyFor(s.getBytes(StandardCharsets.UTF_8)));
    this.jwks = settings.jwksUrl().map(url -> new JwksKeys(url, clock));
    this.tenantIds = tenantIds;
    this.clock = clock;
    JwtParserBuilder builder = Jwts.parser()
        .keyLocator(new PinnedKeys())
        .sig().clear().add(Jwts.SIG.HS256).add(Jwts.SIG.RS256).add(Jwts.SIG.ES256).and()
        .clock(() -> Date.from(clock.instant()))
        .clockSkewSeconds(CLOCK_SKEW_SECONDS)
        .requireAudience(settings.audience());
    settings.issuer().ifPresent(builder::requireIssuer);
    this.parser = builder.build();
  }

  boolean enabled() {
    return settings.jwtEnabled();
  }

  /** Blocks when the JWKS or the tenant must be fetched. */
  Outcome authenticate(String token) {
    if (!enabled()) {
      return Outcome.refused(Refusal.JWT_NOT_CONFIGURED);
    }
    if (token.length() > MAX_TOKEN_CHARS) {
      return Outcome.refused(Refusal.TOO_LARGE);
    }
    if (!canonical(token)) {
      return Outcome.refused(Refusal.MALFORMED);
    }
    Claims claims;
    try {
      claims = parser.parseSignedClaims(token).getPayload();
    } catch (RuntimeException e) {
      return Outcome.refused(refusal(e));
    }
    if (claims.getExpiration() == null) {
      return Outcome.refused(Refusal.JWT_MISSING_EXPIRY);
    }
    if (claims.getIssuedAt() != null
        && claims.getIssuedAt().toInstant().isAfter(clock.instant().plusSeconds(CLOCK_SKEW_SECONDS))) {
      return Outcome.refused(Refusal.JWT_ISSUED_IN_FUTURE);
    }
    String subject = claims.getSubject();
    if (subject == null || subject.isBlank()) {
      return Outcome.refused(Refusal.JWT_SUBJECT);
    }
    Object claimed = claims.get(settings.tenantClaim());
    Optional<String> named = claimed instanceof String name && !name.isBlank()
        ? Optional.of(name) : settings.defaultTenant();
    if (named.isEmpty()) {
      return Outcome.refused(Refusal.NO_TENANT);
    }
    return tenantId(named.get())
        .map(tenantId -> Outcome.authenticated(Principal.jwtUser(tenantId, subject)))
        .orElseGet(() -> Outcome.refused(Refusal.UNKNOWN_TENANT));
  }

  /**
   * Three segments, each base64url exactly as an encoder writes it. The parser's decoder ignores the
   * unused low bits of a segment's last character, so without this check several strings carry the
   * same signature: a token could be altered and still verify.
   */
  private static boolean canonical(String token) {
    String[] segments = token.split("\\.", -1);
    if (segments.length != 3) {
      return false;
    }
    for (String segment : segments) {
      try {
        if (!BASE64URL.encodeToString(BASE64URL_DECODER.decode(segment)).equals(segment)) {
          return false;
        }
      } catch (IllegalArgumentException notBase64url) {
        return false;
      }
    }
    return true;
  }

  private Optional<String> tenantId(String idOrName) {
    Instant now = clock.instant();
    CachedTenant cached = tenants.get(idOrName);
    if (cached != null && cached.until().isAfter(now)) {
      return cached.tenantId();
    }
    Optional<String> tenantId = tenantIds.apply(idOrName);
    if (tenants.size() > 10_000) {
      tenants.clear();
    }
    tenants.put(idOrName, new CachedTenant(tenantId, now.plus(TENANT_CACHE_TTL)));
    return tenantId;
  }

  private static Refusal refusal(RuntimeException e) {
    return switch (e) {
      case AlgorithmRefused refused -> Refusal.JWT_ALGORITHM;
      case ExpiredJwtException expired -> Refusal.JWT_EXPIRED;
      case PrematureJwtException premature -> Refusal.JWT_NOT_YET_VALID;
      case MissingClaimException missing -> claimRefusal(missing);
      case IncorrectClaimException incorrect -> claimRefusal(incorrect);
      case io.jsonwebtoken.security.SecurityException security -> Refusal.JWT_SIGNATURE;
      case UnsupportedJwtException unsupported -> Refusal.JWT_ALGORITHM;
      case JwtException jwt -> Refusal.JWT_INVALID;
      default -> Refusal.MALFORMED;
    };
  }

  private static Refusal claimRefusal(ClaimJwtException e) {
    String claim = e instanceof MissingClaimException missing ? missing.getClaimName()
        : ((IncorrectClaimException) e).getClaimName();
    return Claims.ISSUER.equals(claim) ? Refusal.JWT_ISSUER : Refusal.JWT_AUDIENCE;
  }

  /** A token whose algorithm is not one configured here. */
  private static final class AlgorithmRefused extends JwtException {
    AlgorithmRefused() {
      super("algorithm not accepted");
    }
  }

  private final class PinnedKeys implements Locator<Key> {
    @Override
    public Key locate(Header header) {
      if (!(header instanceof JwsHeader jws)) {
        throw new AlgorithmRefused();
      }
      String algorithm = jws.getAlgorithm();
      if ("HS256".equals(algorithm) && secret.isPresent()) {
        return secret.get();
      }
      if (ASYMMETRIC.contains(algorithm) && jwks.isPresent() && jws.getKeyId() != null) {
        return jwks.get().key(jws.getKeyId()).orElseThrow(AlgorithmRefused::new);
      }
      throw new AlgorithmRefused();
    }
  }
}
