package dev.colloquy.http.auth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.http.Json;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** JWTs written by hand, so a test controls every byte of header, payload and signature. */
final class Tokens {

  static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  static final Base64.Decoder B64_DECODER = Base64.getUrlDecoder();

  private Tokens() {}

  static ObjectNode header(String alg) {
    return Json.MAPPER.createObjectNode().put("alg", alg).put("typ", "JWT");
  }

  /** The claims of a valid token for {@code audience}: a subject, a tenant, an hour to live. */
  static ObjectNode claims(String audience, Instant now) {
    return Json.MAPPER.createObjectNode()
        .put("sub", "user-1")
        .put("aud", audience)
        .put("tenant_id", "tenant-1")
        .put("iat", now.getEpochSecond())
        .put("exp", now.plusSeconds(3600).getEpochSecond());
  }

  static String encode(String json) {
    return B64.encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  static String decode(String segment) {
    return new String(B64_DECODER.decode(segment), StandardCharsets.UTF_8);
  }

  /** {@code header.payload.signature} with an HMAC ({@code HmacSHA256}, {@code HmacSHA512}) over the first two. */
  static String hmac(String headerJson, String payloadJson, byte[] key, String macAlgorithm) {
    String signingInput = encode(headerJson) + "." + encode(payloadJson);
    return signingInput + "." + B64.encodeToString(mac(signingInput, key, macAlgorithm));
  }

  static String hs256(ObjectNode header, ObjectNode claims, byte[] key) {
    return hmac(header.toString(), claims.toString(), key, "HmacSHA256");
  }

  static byte[] mac(String signingInput, byte[] key, String macAlgorithm) {
    try {
      Mac mac = Mac.getInstance(macAlgorithm);
      mac.init(new SecretKeySpec(key, macAlgorithm));
      return mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
