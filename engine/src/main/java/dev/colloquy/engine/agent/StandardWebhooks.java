package dev.colloquy.engine.agent;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signatures in the Standard Webhooks format: {@code v1,} and the base64 HMAC-SHA256 of
 * {@code "<webhook-id>.<webhook-timestamp>.<body>"}, keyed with the bytes of a {@code whsec_} secret.
 */
public final class StandardWebhooks {

  public static final String SECRET_PREFIX = "whsec_";

  private StandardWebhooks() {}

  public static String signature(String secret, String webhookId, long timestampSeconds, String body) {
    String key = secret.startsWith(SECRET_PREFIX) ? secret.substring(SECRET_PREFIX.length()) : secret;
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(Base64.getDecoder().decode(key), "HmacSHA256"));
      byte[] signed = mac.doFinal((webhookId + "." + timestampSeconds + "." + body).getBytes(StandardCharsets.UTF_8));
      return "v1," + Base64.getEncoder().encodeToString(signed);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }
}
