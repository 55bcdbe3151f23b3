package dev.colloquy.http.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.config.AuthSettings;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A property of the verifier: no mutation of a valid token's header, payload or signature is
 * accepted. The seed is printed; {@code -Djwt.mutation.seed=N} replays a run.
 */
class JwtMutationTest {

  private static final String SECRET = "mutation-test-secret-0123456789abcdef";
  private static final String AUDIENCE = "authenticated";
  private static final int CASES = 2_000;
  private static final String BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  private final JwtAuthenticator verifier = new JwtAuthenticator(
      new AuthSettings(Optional.of(SECRET), Optional.empty(), AUDIENCE, Optional.of("https://issuer.test"),
          "tenant_id", Optional.empty()),
      Optional::of, Clock.systemUTC());

  private final Instant now = Instant.now();

  @Test
  void theUnmutatedTokenIsAccepted() {
    assertThat(verifier.authenticate(valid())).isInstanceOf(Outcome.Authenticated.class);
  }

  /** 32 signature bytes take 43 characters: the last carries 4 unused bits, which must not be free to vary. */
  @Test
  void everyOtherLastCharacterOfTheSignatureIsRefused() {
    String valid = valid();
    String body = valid.substring(0, valid.length() - 1);
    for (char c : BASE64URL.toCharArray()) {
      if (c != valid.charAt(valid.length() - 1)) {
        assertThat(verifier.authenticate(body + c)).as(body + c).isInstanceOf(Outcome.Refused.class);
      }
    }
  }

  @Test
  void noRandomMutationIsAccepted() {
    long seed = Long.getLong("jwt.mutation.seed", System.nanoTime());
    System.out.println("JwtMutationTest seed " + seed + " (replay with -Djwt.mutation.seed=" + seed + ")");
    Random random = new Random(seed);
    String valid = valid();
    List<Function<String, String>> mutations = mutations(random);
    int tried = 0;
    while (tried < CASES) {
      int which = random.nextInt(mutations.size());
      String mutated = mutations.get(which).apply(valid);
      if (mutated.equals(valid)) {
        continue;
      }
      tried++;
      Outcome outcome = verifier.authenticate(mutated);
      assertThat(outcome).as("seed %d, case %d, mutation %d: %s", seed, tried, which, mutated)
          .isInstanceOf(Outcome.Refused.class);
    }
  }

  private String valid() {
    return Tokens.hs256(Tokens.header("HS256"), claims(), secret());
  }

  private ObjectNode claims() {
    return Tokens.claims(AUDIENCE, now).put("iss", "https://issuer.test");
  }

  private static byte[] secret() {
    return SECRET.getBytes(StandardCharsets.UTF_8);
  }

  private List<Function<String, String>> mutations(Random random) {
    List<Function<String, String>> mutations = new ArrayList<>();
    // Characters: replace, insert or delete one in any segment, dots included.
    mutations.add(token -> replaceChar(token, random));
    mutations.add(token -> {
      int at = random.nextInt(token.length() + 1);
      return token.substring(0, at) + BASE64URL.charAt(random.nextInt(BASE64URL.length())) + token.substring(at);
    });
    mutations.add(token -> {
      int at = random.nextInt(token.length());
      return token.substring(0, at) + token.substring(at + 1);
    });
    // Flip one bit of one decoded segment, re-encoded: same length, different bytes.
    mutations.add(token -> flipBit(token, random.nextInt(3), random));
    // The header rewritten, the signature kept.
    mutations.add(token -> withSegment(token, 0, Tokens.encode(mutatedHeader(random).toString())));
    // The payload rewritten, the signature kept.
    mutations.add(token -> withSegment(token, 1, Tokens.encode(mutatedClaims(random).toString())));
    // The signature dropped, emptied, truncated, extended or replaced.
    mutations.add(token -> token.substring(0, token.lastIndexOf('.')));
    mutations.add(token -> token.substring(0, token.lastIndexOf('.') + 1));
    mutations.add(token -> token.substring(0, token.length() - 1 - random.nextInt(40)));
    mutations.add(token -> token + BASE64URL.charAt(random.nextInt(BASE64URL.length())));
    mutations.add(token -> withSegment(token, 2, Tokens.B64.encodeToString(randomBytes(random, 32))));
    // Re-signed, but with another key, another algorithm or claims that must be refused.
    mutations.add(token -> Tokens.hs256(Tokens.header("HS256"), claims(), randomBytes(random, 32 + random.nextInt(32))));
    mutations.add(token -> Tokens.hmac(Tokens.header(random.nextBoolean() ? "HS384" : "HS512").toString(),
        claims().toString(), secret(), random.nextBoolean() ? "HmacSHA384" : "HmacSHA512"));
    mutations.add(token -> Tokens.hs256(Tokens.header("HS256"), invalidClaims(random), secret()));
    mutations.add(token -> Tokens.encode(Tokens.header("none").toString()) + "." + Tokens.encode(claims().toString()) + ".");
    // Segments swapped or repeated.
    mutations.add(token -> {
      String[] parts = token.split("\\.", -1);
      return parts[1] + "." + parts[0] + "." + parts[2];
    });
    mutations.add(token -> token + "." + token.substring(token.lastIndexOf('.') + 1));
    return mutations;
  }

  private static String replaceChar(String token, Random random) {
    int at = random.nextInt(token.length());
    char replacement = BASE64URL.charAt(random.nextInt(BASE64URL.length()));
    return token.substring(0, at) + replacement + token.substring(at + 1);
  }

  private static String flipBit(String token, int segment, Random random) {
    String[] parts = token.split("\\.", -1);
    byte[] bytes = Tokens.B64_DECODER.decode(parts[segment]);
    int at = random.nextInt(bytes.length);
    bytes[at] ^= (byte) (1 << random.nextInt(8));
    return withSegment(token, segment, Tokens.B64.encodeToString(bytes));
  }

  private static String withSegment(String token, int segment, String value) {
    String[] parts = token.split("\\.", -1);
    parts[segment] = value;
    return String.join(".", parts);
  }

  private static ObjectNode mutatedHeader(Random random) {
    ObjectNode header = Tokens.header("HS256");
    switch (random.nextInt(8)) {
      case 0 -> header.put("alg", pick(random, "none", "None", "NONE", "HS384", "HS512", "RS256", "ES256", "PS256", "hs256", ""));
      case 1 -> header.putNull("alg");
      case 2 -> header.remove("alg");
      case 3 -> header.put("kid", "kid-" + random.nextInt(1000));
      case 4 -> header.put("typ", pick(random, "at+jwt", "JWE", ""));
      case 5 -> header.putArray("crit").add("exp");
      case 6 -> header.put("jku", "http://127.0.0.1:1/jwks.json");
      default -> header.put("zip", "DEF");
    }
    return header;
  }

  private ObjectNode mutatedClaims(Random random) {
    ObjectNode claims = claims();
    switch (random.nextInt(7)) {
      case 0 -> claims.put("sub", "user-" + random.nextInt(1000));
      case 1 -> claims.put("tenant_id", "tenant-" + random.nextInt(1000));
      case 2 -> claims.put("exp", claims.path("exp").asLong() + 1 + random.nextInt(100_000));
      case 3 -> claims.put("aud", pick(random, "anon", "service_role", ""));
      case 4 -> claims.put("role", "admin");
      case 5 -> claims.remove(pick(random, "iat", "exp", "sub", "aud", "iss", "tenant_id"));
      default -> claims.put("iss", "https://evil.test");
    }
    return claims;
  }

  /** Correctly signed claims that break a rule: expiry, audience, issuer, nbf, iat, subject. */
  private ObjectNode invalidClaims(Random random) {
    ObjectNode claims = claims();
    switch (random.nextInt(8)) {
      case 0 -> claims.put("exp", now.minusSeconds(61 + random.nextInt(100_000)).getEpochSecond());
      case 1 -> claims.remove("exp");
      case 2 -> claims.put("aud", pick(random, "anon", "service_role", "Authenticated"));
      case 3 -> claims.put("iss", pick(random, "https://evil.test", "https://issuer.test/", ""));
      case 4 -> claims.remove("iss");
      case 5 -> claims.put("nbf", now.plusSeconds(61 + random.nextInt(100_000)).getEpochSecond());
      case 6 -> claims.put("iat", now.plusSeconds(61 + random.nextInt(100_000)).getEpochSecond());
      default -> claims.remove("sub");
    }
    return claims;
  }

  private static String pick(Random random, String... values) {
    return values[random.nextInt(values.length)];
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }
}
