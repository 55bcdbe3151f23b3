package dev.colloquy.persistence.tenant;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The text of an API key, {@code ck_<key id>_<secret>} (a public key: {@code cpk_…}, see {@link KeyKind}):
 * a key id of 64 random bits (hex) that names the stored row, and a secret of 256 random bits (hex) of
 * which only the SHA-256 is stored.
 *
 * <p>A fast, unsalted hash is enough here: the secret is 256 bits from {@link SecureRandom}, so there
 * is no dictionary to try and brute force of the hash is as hopeless as guessing the secret itself.
 * Slow password hashes (bcrypt, Argon2) exist for low-entropy human passwords and would only cost
 * latency on every request.
 */
public final class ApiKeys {

  public static final String PREFIX = "ck_";
  private static final int KEY_ID_BYTES = 8;
  private static final int SECRET_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  private ApiKeys() {}

  /** A key's id, secret and kind (from its prefix) as read from a presented key. */
  public record Parsed(String keyId, String secret, KeyKind kind) {

    @Override
    public String toString() {
      return "Parsed[keyId=" + keyId + ", kind=" + kind + "]";
    }
  }

  static String newKeyId() {
    return random(KEY_ID_BYTES);
  }

  static String newSecret() {
    return random(SECRET_BYTES);
  }

  static String text(String keyId, String secret) {
    return text(keyId, secret, KeyKind.SECRET);
  }

  static String text(String keyId, String secret, KeyKind kind) {
    return kind.prefix() + keyId + "_" + secret;
  }

  /** A secret or a public key, by its prefix. */
  public static boolean looksLikeKey(String value) {
    return kindOf(value).isPresent();
  }

  private static Optional<KeyKind> kindOf(String value) {
    for (KeyKind kind : KeyKind.values()) {
      if (value.startsWith(kind.prefix())) {
        return Optional.of(kind);
      }
    }
    return Optional.empty();
  }

  /** The id, secret and kind of a well-formed key; empty for anything else. */
  public static Optional<Parsed> parse(String value) {
    Optional<KeyKind> kind = kindOf(value);
    if (kind.isEmpty()) {
      return Optional.empty();
    }
    String rest = value.substring(kind.get().prefix().length());
    int separator = rest.indexOf('_');
    if (separator != KEY_ID_BYTES * 2 || rest.length() != separator + 1 + SECRET_BYTES * 2) {
      return Optional.empty();
    }
    String keyId = rest.substring(0, separator);
    String secret = rest.substring(separator + 1);
    if (!isHex(keyId) || !isHex(secret)) {
      return Optional.empty();
    }
    return Optional.of(new Parsed(keyId, secret, kind.get()));
  }

  public static byte[] sha256(String secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.US_ASCII));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** Constant time, so the time of a refusal tells nothing about how much of the secret was right. */
  public static boolean matches(String secret, byte[] storedSha256) {
    return MessageDigest.isEqual(sha256(secret), storedSha256);
  }

  private static boolean isHex(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  private static String random(int bytes) {
    byte[] value = new byte[bytes];
    RANDOM.nextBytes(value);
    return HEX.formatHex(value);
  }
}
