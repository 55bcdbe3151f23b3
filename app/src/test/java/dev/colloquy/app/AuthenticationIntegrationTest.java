package dev.colloquy.app;

import static dev.colloquy.app.Credentialed.assertUnauthenticated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.http.auth.JwksServer;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jsonwebtoken.Jwts;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every credential that must be refused gets 401, {@code WWW-Authenticate: Bearer} and the error
 * body; tenant keys, HS256 JWTs and RS256/ES256 JWTs from a JWKS URL are accepted. Real keys from the
 * admin API and real signatures throughout.
 */
class AuthenticationIntegrationTest {

  private static final String SECRET = "integration-test-jwt-secret-0123456789";
  private static final String ADMIN_TOKEN = "admin-token-for-authentication-tests";
  private static final String AUDIENCE = "authenticated";
  private static final String ISSUER = "https://issuer.test/auth/v1";
  /** The development tenant, named as a JWT claim may name it. */
  private static final String TENANT = "dev";
  private static final String PROBE = "/v1/sessions";

  private static final KeyPair RSA = Jwts.SIG.RS256.keyPair().build();
  private static final KeyPair EC = Jwts.SIG.ES256.keyPair().build();
  private static final JwksServer jwks = published();

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.auth.jwt.secret", SECRET,
      "colloquy.auth.jwt.jwks-url", jwks.url(),
      "colloquy.auth.jwt.issuer", ISSUER,
      "colloquy.admin.token", ADMIN_TOKEN));

  private static JwksServer published() {
    JwksServer server = JwksServer.start();
    server.publish("rsa-1", RSA);
    server.publish("ec-1", EC);
    return server;
  }

  @AfterAll
  static void stopJwks() {
    jwks.close();
  }

  private static String baseUrl() {
    return app.colloquy().baseUrl();
  }

  private static ObjectNode claims() {
    return SignedTokens.claims(AUDIENCE, ISSUER, TENANT);
  }

  private static String hs256(ObjectNode claims) {
    return SignedTokens.hs256(SignedTokens.header("HS256"), claims, SECRET.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertBearerRefused(String token, String what) throws Exception {
    assertUnauthenticated(Credentialed.bearer(baseUrl(), PROBE, token), what);
  }

  private static void assertBearerAccepted(String token, String what) throws Exception {
    Credentialed.Reply reply = Credentialed.bearer(baseUrl(), PROBE, token);
    assertThat(reply.status()).as(what + ": " + reply.body()).isEqualTo(200);
  }

  @Test
  void validCredentialsAreAccepted() throws Exception {
    assertBearerAccepted(app.api().apiKey(), "tenant key as bearer");
    Credentialed.Reply viaHeader = Credentialed.get(baseUrl(), PROBE, "X-API-Key", app.api().apiKey());
    assertThat(viaHeader.status()).as(viaHeader.body()).isEqualTo(200);
    assertBearerAccepted(hs256(claims()), "HS256");
    assertBearerAccepted(SignedTokens.signed("rsa-1", RSA.getPrivate(), Jwts.SIG.RS256, claims()), "RS256");
    assertBearerAccepted(SignedTokens.signed("ec-1", EC.getPrivate(), Jwts.SIG.ES256, claims()), "ES256");
  }

  @Test
  void aMissingCredentialIsRefused() throws Exception {
    assertUnauthenticated(Credentialed.get(baseUrl(), PROBE), "no credential");
    assertUnauthenticated(Credentialed.send(baseUrl(), "POST", "/v1/sessions", "{}"), "no credential on POST");
    assertUnauthenticated(Credentialed.get(baseUrl(), "/v1/no-such-route"), "no credential on an unknown route");
  }

  @Test
  void aMalformedHeaderIsRefused() throws Exception {
    for (String value : new String[] {"Basic dXNlcjpwYXNz", "Bearer", "Bearer    ", "Token " + app.api().apiKey(),
        app.api().apiKey(), "Bearer not-a-jwt", "Bearer a.b.c", "Bearer ck_", "Bearer ck_zz_zz"}) {
      assertUnauthenticated(Credentialed.get(baseUrl(), PROBE, "Authorization", value), value);
    }
    assertUnauthenticated(Credentialed.get(baseUrl(), PROBE, "X-API-Key", hs256(claims())), "a JWT in X-API-Key");
  }

  @Test
  void anUnknownKeyOrAWrongSecretIsRefused() throws Exception {
    HexFormat hex = HexFormat.of();
    Random random = new Random();
    byte[] id = new byte[8];
    byte[] secret = new byte[32];
    random.nextBytes(id);
    random.nextBytes(secret);
    assertBearerRefused("ck_" + hex.formatHex(id) + "_" + hex.formatHex(secret), "unknown key");

    String key = app.api().apiKey();
    String keyId = key.substring(3, key.lastIndexOf('_'));
    assertBearerRefused("ck_" + keyId + "_" + hex.formatHex(secret), "wrong secret");
    String flipped = key.substring(0, key.length() - 1) + (key.endsWith("0") ? "1" : "0");
    assertBearerRefused(flipped, "one character of the secret changed");
  }

  @Test
  void aRevokedKeyIsRefusedWithinFiveSeconds() throws Exception {
    Credentialed.Reply issued = Credentialed.send(baseUrl(), "POST", "/v1/admin/tenants/default/keys", null,
        "Authorization", "Bearer " + ADMIN_TOKEN);
    assertThat(issued.status()).as(issued.body()).isEqualTo(201);
    String key = issued.json().path("api_key").asText();
    assertBearerAccepted(key, "the new key");

    Credentialed.Reply revoked = Credentialed.send(baseUrl(), "DELETE",
        "/v1/admin/keys/" + issued.json().path("key_id").asText(), null, "Authorization", "Bearer " + ADMIN_TOKEN);
    assertThat(revoked.status()).as(revoked.body()).isEqualTo(204);
    long revokedAt = System.nanoTime();
    long deadline = revokedAt + Duration.ofSeconds(5).toNanos();
    Credentialed.Reply reply = Credentialed.bearer(baseUrl(), PROBE, key);
    while (reply.status() == 200 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      reply = Credentialed.bearer(baseUrl(), PROBE, key);
    }
    assertUnauthenticated(reply, "revoked key, " + Duration.ofNanos(System.nanoTime() - revokedAt).toMillis() + " ms after");
    assertBearerAccepted(app.api().apiKey(), "the tenant's other key");
  }

  @Test
  void expiredNotYetValidAndUnexpiringTokensAreRefused() throws Exception {
    long now = Instant.now().getEpochSecond();
    assertBearerRefused(hs256(claims().put("exp", now - 61)), "expired beyond the skew");
    assertBearerRefused(hs256(claims().put("exp", now - 3600).put("iat", now - 7200)), "expired an hour ago");
    assertBearerRefused(hs256(claims().put("nbf", now + 120)), "nbf in two minutes");
    assertBearerRefused(hs256(claimsWithout("exp")), "no exp");
    assertBearerAccepted(hs256(claims().put("nbf", now + 30)), "nbf within the skew");
  }

  @Test
  void theWrongAudienceOrIssuerIsRefused() throws Exception {
    assertBearerRefused(hs256(claims().put("aud", "anon")), "wrong aud");
    assertBearerRefused(hs256(claimsWithout("aud")), "no aud");
    assertBearerRefused(hs256(claims().put("iss", "https://other.test/auth/v1")), "wrong iss");
    assertBearerRefused(hs256(claimsWithout("iss")), "no iss");
    assertBearerRefused(SignedTokens.signed("rsa-1", RSA.getPrivate(), Jwts.SIG.RS256, claims().put("aud", "anon")),
        "RS256 with the wrong aud");
  }

  @Test
  void algorithmNoneAndTheHsRsConfusionAreRefused() throws Exception {
    String payload = SignedTokens.encode(claims().toString());
    for (String none : new String[] {"none", "None", "NONE"}) {
      assertBearerRefused(SignedTokens.encode(SignedTokens.header(none).toString()) + "." + payload + ".", "alg " + none);
    }
    String valid = hs256(claims());
    assertBearerRefused(SignedTokens.withSegment(valid, 0, SignedTokens.encode(SignedTokens.header("none").toString())),
        "alg none with the HS256 signature kept");

    byte[] der = RSA.getPublic().getEncoded();
    String pem = "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(der) + "\n-----END PUBLIC KEY-----\n";
    ObjectNode confused = SignedTokens.header("HS256").put("kid", "rsa-1");
    assertBearerRefused(SignedTokens.hs256(confused, claims(), der), "HS256 keyed with the RSA public key (DER)");
    assertBearerRefused(SignedTokens.hs256(confused, claims(), pem.getBytes(StandardCharsets.US_ASCII)),
        "HS256 keyed with the RSA public key (PEM)");
    assertBearerRefused(SignedTokens.hs256(SignedTokens.header("HS256"), claims(), EC.getPublic().getEncoded()),
        "HS256 keyed with the EC public key");
  }

  @Test
  void tamperedTokensAreRefused() throws Exception {
    String valid = hs256(claims());
    assertBearerRefused(SignedTokens.withSegment(valid, 1, SignedTokens.encode(claims().put("sub", "admin").toString())),
        "payload changed, signature kept");
    assertBearerRefused(SignedTokens.withSegment(valid, 1, SignedTokens.encode(claims().put("tenant_id", "other").toString())),
        "tenant changed, signature kept");
    String signature = valid.substring(valid.lastIndexOf('.') + 1);
    char middle = signature.charAt(signature.length() / 2);
    String changed = signature.substring(0, signature.length() / 2) + (middle == 'A' ? 'B' : 'A')
        + signature.substring(signature.length() / 2 + 1);
    assertBearerRefused(SignedTokens.withSegment(valid, 2, changed), "signature changed");
    assertBearerRefused(SignedTokens.withSegment(valid, 2, ""), "signature removed");
    String rsa = SignedTokens.signed("rsa-1", RSA.getPrivate(), Jwts.SIG.RS256, claims());
    assertBearerRefused(SignedTokens.withSegment(rsa, 1, SignedTokens.encode(claims().put("sub", "admin").toString())),
        "RS256 payload changed");
    assertBearerRefused(SignedTokens.signed("rsa-1", EC.getPrivate(), Jwts.SIG.ES256, claims()),
        "ES256 naming the RSA key");
    assertBearerRefused(hs256(claims().put("tenant_id", "no-such-tenant")), "a tenant that does not exist");
  }

  @Test
  void aTokenOver8KiBIsRefused() throws Exception {
    int pad = 0;
    while (padded(pad + 1).length() <= 8 * 1024) {
      pad++;
    }
    String atTheCap = padded(pad);
    String justOver = padded(pad + 1);
    assertThat(atTheCap.length()).isGreaterThan(8 * 1024 - 4);
    assertBearerAccepted(atTheCap, "a token of " + atTheCap.length() + " characters");
    assertBearerRefused(justOver, "a validly signed token of " + justOver.length() + " characters");
    assertBearerRefused(padded(7_500), "a validly signed token of about 10 KiB");
  }

  /** A valid HS256 token whose payload carries {@code padChars} characters of padding. */
  private static String padded(int padChars) {
    return hs256(claims().put("pad", "x".repeat(padChars)));
  }

  @Test
  void unknownKidsFetchTheJwksAtMostOnce() throws Exception {
    assertBearerAccepted(SignedTokens.signed("rsa-1", RSA.getPrivate(), Jwts.SIG.RS256, claims()), "RS256");
    int before = jwks.fetches();
    for (int i = 0; i < 20; i++) {
      assertBearerRefused(SignedTokens.signed(UUID.randomUUID().toString(), RSA.getPrivate(), Jwts.SIG.RS256, claims()),
          "unknown kid");
    }
    assertThat(jwks.fetches() - before).as("JWKS fetches for 20 unknown kids").isLessThanOrEqualTo(1);
  }

  /** A sample of the verifier's mutation property over HTTP: random one-character changes, all refused. */
  @Test
  void randomMutationsOverHttpAreRefused() throws Exception {
    long seed = System.nanoTime();
    System.out.println("AuthenticationIntegrationTest mutation seed " + seed);
    Random random = new Random(seed);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    String valid = hs256(claims());
    for (int i = 0; i < 100; i++) {
      int at = random.nextInt(valid.length());
      String mutated = valid.substring(0, at) + alphabet.charAt(random.nextInt(alphabet.length())) + valid.substring(at + 1);
      if (!mutated.equals(valid)) {
        assertBearerRefused(mutated, "seed " + seed + ", case " + i);
      }
    }
  }

  private static ObjectNode claimsWithout(String claim) {
    ObjectNode claims = claims();
    claims.remove(claim);
    return claims;
  }
}
