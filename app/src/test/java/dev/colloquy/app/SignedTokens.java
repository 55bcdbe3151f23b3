package dev.colloquy.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.SignatureAlgorithm;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Real signed JWTs: HS256 written by hand (so a test controls every byte, {@code alg: none} and
 * confusion attacks included), RS256 and ES256 signed by jjwt.
 */
final class SignedTokens {

  static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private SignedTokens() {}

  static ObjectNode header(String alg) {
    return Api.JSON.createObjectNode().put("alg", alg).put("typ", "JWT");
  }

  /** Claims that pass every rule: a subject, the audience and issuer, a tenant, an hour to live. */
  static ObjectNode claims(String audience, String issuer, String tenant) {
    long now = Instant.now().getEpochSecond();
    return Api.JSON.createObjectNode()
        .put("sub", "user-1")
        .put("aud", audience)
        .put("iss", issuer)
        .put("tenant_id", tenant)
        .put("iat", now)
        .put("exp", now + 3600);
  }

  static String encode(String json) {
    return B64.encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  static String hs256(ObjectNode header, ObjectNode claims, byte[] key) {
    String signingInput = encode(header.toString()) + "." + encode(claims.toString());
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return signingInput + "." + B64.encodeToString(mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** RS256 or ES256 with the private key, naming {@code kid}. */
  static String signed(String kid, PrivateKey key, SignatureAlgorithm algorithm, ObjectNode claims) {
    @SuppressWarnings("unchecked")
    Map<String, Object> values = Api.JSON.convertValue(claims, Map.class);
    return Jwts.builder().header().keyId(kid).and().claims(values).signWith(key, algorithm).compact();
  }

  /** The token with segment {@code segment} (0 header, 1 payload, 2 signature) replaced. */
  static String withSegment(String token, int segment, String value) {
    String[] parts = token.split("\\.", -1);
    parts[segment] = value;
    return String.join(".", parts);
  }
}
