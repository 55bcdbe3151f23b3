package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Property: whatever body a client sends to a JSON route of the canonical API or the admin and
 * configuration routes, the answer is a success or the error body of API.md with a 4xx status, never
 * a 500 and never a stack trace. Cases come from a generator with a fixed seed (malformed and
 * truncated JSON, invalid UTF-8, deep nesting, huge numbers, duplicate keys, a value of every wrong
 * type in every field), over HTTP on the real server; a failing case is printed with its seed and
 * number so it can be replayed.
 */
class HttpFuzzIntegrationTest {

  private static final long SEED = 20261124L;
  private static final int CASES = 600;
  private static final String ADMIN_TOKEN = "fuzz-admin-token";

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.admin.token", ADMIN_TOKEN));

  private static final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  /** One JSON route and the fields of its body, with a valid value each. */
  private record Target(String method, String path, boolean admin, Map<String, Object> fields) {}

  private record Case(int number, Target target, byte[] body, String description) {
    @Override
    public String toString() {
      String shown = new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8)
          .replace("\n", "\\n").replace("\r", "\\r");
      return "case " + number + " (seed " + SEED + "): " + target.method() + " " + target.path() + " " + description
          + " body[" + body.length + " bytes]: " + shown;
    }
  }

  @Test
  void everyBodyGetsASuccessOrTheErrorBodyNeverA500() throws Exception {
    String sessionId = app.api().openSession();
    List<Target> targets = List.of(
        new Target("POST", "/v1/sessions", false, Map.of("session_id", "", "persona", "a pirate",
            "metadata", Map.of("source", "fuzz"))),
        new Target("POST", "/v1/sessions/" + sessionId + "/turns", false, Map.of("message", "hello",
            "idempotency_key", "k", "turn_id", "", "models", List.of(TestColloquy.MODEL))),
        new Target("POST", "/v1/sessions/" + sessionId + "/close", false, Map.of()),
        new Target("PUT", "/v1/config", false, Map.of("persona_name", "Aria", "escalation_threshold", 0.5,
            "max_turns_before_escalation", 12, "allowed_topics", List.of("billing"), "languages", List.of("en"))),
        new Target("POST", "/v1/admin/tenants", true, Map.of("name", "fuzzed")),
        new Target("PUT", "/v1/users/fuzzer/context", false, Map.of("plan", "pro", "usage", Map.of("orders", 4),
            "preferences", Map.of("channel", "sms"))));
    Random random = new Random(SEED);
    List<String> failures = new ArrayList<>();
    int successes = 0;
    for (int i = 0; i < CASES; i++) {
      Case fuzz = generate(i, targets.get(random.nextInt(targets.size())), random);
      HttpResponse<String> response = send(fuzz);
      String problem = problem(response);
      if (problem != null) {
        failures.add(fuzz + "\n  -> " + response.statusCode() + " " + problem + ": " + response.body());
      } else if (response.statusCode() < 300) {
        successes++;
      }
    }
    assertThat(failures).as("failing cases").isEmpty();
    assertThat(successes).as("cases answered with a success").isPositive();
    assertThat(app.api().get("/ready").status()).isEqualTo(200);
  }

  /** Why an answer breaks the property, or null. */
  private static String problem(HttpResponse<String> response) {
    int status = response.statusCode();
    if (status >= 500) {
      return "a server error";
    }
    String body = response.body();
    if (body.contains("Exception") || body.contains("\tat ") || body.contains("pekko") || body.contains("java.")) {
      return "a stack trace or internals in the body";
    }
    if (status < 300) {
      return null;
    }
    try {
      JsonNode error = Api.JSON.readTree(body).path("error");
      if (!error.path("code").asText().matches("[A-Z][A-Z0-9_]*") || error.path("message").asText().isBlank()
          || !error.path("trace_id").asText().matches("[0-9a-f]{32}")) {
        return "not the error body";
      }
    } catch (Exception notJson) {
      return "not JSON";
    }
    return status >= 400 ? null : "an unexpected status";
  }

  private static HttpResponse<String> send(Case fuzz) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.colloquy().baseUrl() + fuzz.target().path()))
        .timeout(Duration.ofSeconds(30))
        .expectContinue(fuzz.body().length > 1024 * 1024)
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + (fuzz.target().admin() ? ADMIN_TOKEN : app.api().apiKey()))
        .method(fuzz.target().method(), HttpRequest.BodyPublishers.ofByteArray(fuzz.body()));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  // ---- the generator ----

  private static Case generate(int number, Target target, Random random) {
    String valid = json(target.fields());
    return switch (random.nextInt(9)) {
      case 0 -> text(number, target, "truncated", valid.substring(0, random.nextInt(Math.max(1, valid.length()))));
      case 1 -> text(number, target, "garbage", garbage(random));
      case 2 -> new Case(number, target, invalidUtf8(valid, random), "invalid UTF-8");
      case 3 -> text(number, target, "deep nesting", nested(1 + random.nextInt(5000), random));
      case 4 -> text(number, target, "huge number", withField(target, random, hugeNumber(random)));
      case 5 -> text(number, target, "duplicate key", duplicated(target, random));
      case 6 -> text(number, target, "not an object", pick(random, "[]", "[1,2]", "null", "42", "\"text\"", "true", ""));
      case 7 -> number % 50 == 7
          ? text(number, target, "oversized", "{\"message\":\"" + "x".repeat(9 * 1024 * 1024) + "\"}")
          : text(number, target, "wrong type", withField(target, random, wrongValue(random)));
      default -> text(number, target, "wrong type", withField(target, random, wrongValue(random)));
    };
  }

  private static Case text(int number, Target target, String description, String body) {
    return new Case(number, target, body.getBytes(StandardCharsets.UTF_8), description);
  }

  /** The valid body with one field (or a new one) set to {@code value}, written as raw JSON. */
  private static String withField(Target target, Random random, String value) {
    List<String> names = new ArrayList<>(target.fields().keySet());
    names.add("unexpected");
    String chosen = names.get(random.nextInt(names.size()));
    StringBuilder body = new StringBuilder("{");
    for (Map.Entry<String, Object> field : target.fields().entrySet()) {
      if (!field.getKey().equals(chosen)) {
        body.append(body.length() > 1 ? "," : "").append(json(field.getKey())).append(':').append(json(field.getValue()));
      }
    }
    return body.append(body.length() > 1 ? "," : "").append(json(chosen)).append(':').append(value).append('}').toString();
  }

  private static String duplicated(Target target, Random random) {
    List<String> names = new ArrayList<>(target.fields().keySet());
    String name = names.isEmpty() ? "x" : names.get(random.nextInt(names.size()));
    return "{" + json(name) + ":" + wrongValue(random) + "," + json(name) + ":" + wrongValue(random) + "}";
  }

  private static String wrongValue(Random random) {
    return pick(random, "null", "true", "false", "0", "-1", "1.5", "1e308", "-1e-308", "\"\"", "\"   \"", "\"x\"",
        "[]", "{}", "[null]", "[1,\"a\",{}]", "{\"a\":{\"b\":[]}}", json("\u0000\r\n\t\u2028\ud83d\ude00"),
        json("x".repeat(100_000)), "\"\\ud800\"", "[\"" + "y".repeat(300) + "\"]", nested(50, random),
        "\"00000000-0000-0000-0000-000000000000\"", "\"" + java.util.UUID.randomUUID() + "\"");
  }

  private static String hugeNumber(Random random) {
    return pick(random, "1e999999", "-1e999999", "9".repeat(5000), "0." + "1".repeat(2000), "123456789012345678901234567890",
        "1" + "0".repeat(999), "-0", "1E+2147483648");
  }

  private static String nested(int depth, Random random) {
    boolean arrays = random.nextBoolean();
    return (arrays ? "[" : "{\"a\":").repeat(depth) + "1" + (arrays ? "]" : "}").repeat(depth);
  }

  private static String garbage(Random random) {
    StringBuilder text = new StringBuilder();
    String alphabet = "{}[]\":,\\ \t\r\n0123456789eE+-.truefalsnl\u00e9\u0000";
    for (int i = random.nextInt(200); i >= 0; i--) {
      text.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.toString();
  }

  private static byte[] invalidUtf8(String valid, Random random) {
    byte[] bytes = valid.getBytes(StandardCharsets.UTF_8);
    byte[] bad = {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, (byte) 0xED, (byte) 0xA0, (byte) 0x80, (byte) 0xF8};
    int at = 1 + random.nextInt(Math.max(1, bytes.length - 1));
    byte[] out = new byte[bytes.length + bad.length];
    System.arraycopy(bytes, 0, out, 0, at);
    System.arraycopy(bad, 0, out, at, bad.length);
    System.arraycopy(bytes, at, out, at + bad.length, bytes.length - at);
    return out;
  }

  @SafeVarargs
  private static <T> T pick(Random random, T... values) {
    return values[random.nextInt(values.length)];
  }

  private static String json(Object value) {
    try {
      return Api.JSON.writeValueAsString(value);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
