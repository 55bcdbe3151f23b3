package dev.colloquy.config;

import java.net.URI;
import java.util.Optional;

/**
 * How callers prove who they are besides tenant API keys: JWTs signed with a shared HS256 secret
 * (Supabase style) and/or with RS256/ES256 keys published at a JWKS URL.
 */
public record AuthSettings(
    Optional<String> jwtSecret,
    Optional<URI> jwksUrl,
    String audience,
    Optional<String> issuer,
    String tenantClaim,
    Optional<String> defaultTenant) {

  /** HMAC-SHA256 needs a key of at least 256 bits (RFC 7518 §3.2). */
  static final int MIN_SECRET_BYTES = 32;

  static AuthSettings create(SettingsReader reader) {
    Optional<String> secret = reader.optionalString("colloquy.auth.jwt.secret");
    if (secret.isPresent() && secret.get().getBytes(java.nio.charset.StandardCharsets.UTF_8).length < MIN_SECRET_BYTES) {
      throw reader.invalid("colloquy.auth.jwt.secret", "must be at least " + MIN_SECRET_BYTES + " bytes");
    }
    Optional<URI> jwks = reader.optionalString("colloquy.auth.jwt.jwks-url").map(url -> jwksUrl(reader, url));
    String audience = reader.string("colloquy.auth.jwt.audience").strip();
    if (audience.isEmpty()) {
      throw reader.invalid("colloquy.auth.jwt.audience", "must not be empty");
    }
    String claim = reader.string("colloquy.auth.jwt.tenant-claim").strip();
    if (claim.isEmpty()) {
      throw reader.invalid("colloquy.auth.jwt.tenant-claim", "must not be empty");
    }
    return new AuthSettings(secret, jwks, audience, reader.optionalString("colloquy.auth.jwt.issuer"), claim,
        reader.optionalString("colloquy.auth.jwt.default-tenant"));
  }

  private static URI jwksUrl(SettingsReader reader, String url) {
    try {
      URI uri = URI.create(url);
      if (("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) && uri.getHost() != null) {
        return uri;
      }
    } catch (IllegalArgumentException e) {
      // answered below
    }
    throw reader.invalid("colloquy.auth.jwt.jwks-url", "must be an http(s) URL, was '" + url + "'");
  }

  public boolean jwtEnabled() {
    return jwtSecret.isPresent() || jwksUrl.isPresent();
  }

  /** Never prints the secret. */
  @Override
  public String toString() {
    return "AuthSettings[jwtSecret=" + (jwtSecret.isPresent() ? "***" : "(none)") + ", jwksUrl=" + jwksUrl
        + ", audience=" + audience + ", issuer=" + issuer + ", tenantClaim=" + tenantClaim
        + ", defaultTenant=" + defaultTenant + "]";
  }
}
