package dev.colloquy.engine.tenant;

import java.security.SecureRandom;
import java.util.Base64;

/** Secrets for signing escalation webhooks in the Standard Webhooks format: {@code whsec_} and base64 key bytes. */
final class WebhookSecrets {

  static final String PREFIX = "whsec_";
  /** 256 bits: the key of an HMAC-SHA256 needs no more, and Standard Webhooks asks for 24 to 64 bytes. */
  static final int KEY_BYTES = 32;

  private static final SecureRandom RANDOM = new SecureRandom();

  private WebhookSecrets() {}

  static String generate() {
    byte[] key = new byte[KEY_BYTES];
    RANDOM.nextBytes(key);
    return PREFIX + Base64.getEncoder().encodeToString(key);
  }
}
