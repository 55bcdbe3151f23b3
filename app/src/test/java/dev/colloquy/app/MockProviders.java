package dev.colloquy.app;

import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import dev.colloquy.persistence.PlannedPort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Colloquy with several model providers, each a mock model server on its own port:
 * {@code alpha} (the endpoint of {@code colloquy.llm.base-url}) serves {@code mock}; {@code beta} (a
 * block of {@code colloquy.llm.providers}) serves {@code mock} at ten times alpha's price and
 * {@code flaky}, which streams {@value #FLAKY_TOKENS} tokens and then breaks off; {@code slow} serves
 * {@code mock} for about {@value #SLOW_TURN_SECONDS} s a turn; {@code gamma} points at a port nobody
 * listens on.
 */
final class MockProviders implements BeforeAllCallback, AfterAllCallback {

  static final String ALPHA = "alpha";
  static final String BETA = "beta";
  static final String GAMMA = "gamma";
  static final String SLOW = "slow";
  static final int SLOW_TURN_SECONDS = 5;
  static final String FLAKY = "flaky";
  static final int FLAKY_TOKENS = 3;
  /** US dollars per million prompt and completion tokens. */
  static final double ALPHA_IN = 1, ALPHA_OUT = 2, BETA_IN = 10, BETA_OUT = 20;
  /** HS256 tokens signed with this act for their {@code sub} in the tenant their {@code tenant_id} names. */
  static final String JWT_SECRET = "mock-providers-test-jwt-secret-0123456789";
  static final String JWT_ISSUER = "https://issuer.example.test";

  private final MockLlmSettings alphaSettings;
  private Path dataDir;
  private MockLlmServer alpha;
  private MockLlmServer beta;
  private MockLlmServer slow;
  private Colloquy colloquy;
  private Api api;

  private MockProviders(MockLlmSettings alphaSettings) {
    this.alphaSettings = alphaSettings;
  }

  static MockProviders start() {
    return new MockProviders(TestColloquy.fastMock());
  }

  /** Alpha answers with these settings; the others as always. */
  static MockProviders withAlpha(MockLlmSettings alphaSettings) {
    return new MockProviders(alphaSettings);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dataDir = Files.createTempDirectory("colloquy-providers");
    alpha = MockLlmServer.start(alphaSettings, "127.0.0.1", 0);
    beta = MockLlmServer.start(MockLlmSettings.defaults().withTokens(12)
        .failing(FailureMode.MID_STREAM, FLAKY).withFailAfterTokens(FLAKY_TOKENS), "127.0.0.1", 0);
    slow = MockLlmServer.start(MockLlmSettings.defaults().withTokens(SLOW_TURN_SECONDS * 20)
        .withDelays(Duration.ofMillis(50), Duration.ofMillis(50)), "127.0.0.1", 0);
    colloquy = TestColloquy.start(alpha, dataDir, Map.of(
        "colloquy.llm.provider", ALPHA,
        "colloquy.auth.jwt.secret", JWT_SECRET,
        "colloquy.auth.jwt.issuer", JWT_ISSUER,
        "colloquy.llm.extra-models", List.of(),
        "colloquy.llm.prices.mock", Map.of("input-per-million", ALPHA_IN, "output-per-million", ALPHA_OUT),
        "colloquy.llm.providers." + BETA, Map.of("base-url", beta.baseUrl(), "models", List.of("mock", FLAKY),
            "max-retries", 0,
            "prices", Map.of("mock", Map.of("input-per-million", BETA_IN, "output-per-million", BETA_OUT))),
        "colloquy.llm.providers." + SLOW, Map.of("base-url", slow.baseUrl(), "models", List.of("mock")),
        // A port planned for no server: nothing listens there.
        "colloquy.llm.providers." + GAMMA, Map.of("base-url",
            "http://127.0.0.1:" + PlannedPort.forAnotherServer() + "/v1",
            "models", List.of("unreachable"), "max-retries", 0, "connect-timeout", "2s")));
    api = TestColloquy.api(colloquy);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (colloquy != null) {
      colloquy.close();
    }
    if (alpha != null) {
      alpha.close();
    }
    if (beta != null) {
      beta.close();
    }
    if (slow != null) {
      slow.close();
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  MockLlmServer alpha() {
    return alpha;
  }

  MockLlmServer beta() {
    return beta;
  }

  Colloquy colloquy() {
    return colloquy;
  }

  Api api() {
    return api;
  }

  /** A signed token of {@code userId} in the development tenant. */
  static String token(String userId) {
    return SignedTokens.hs256(SignedTokens.header("HS256"),
        SignedTokens.claims("authenticated", JWT_ISSUER, dev.colloquy.http.SessionRoutes.DEFAULT_TENANT).put("sub", userId),
        JWT_SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** What {@code tokens} cost at a price in US dollars per million. */
  static double cost(long promptTokens, long completionTokens, double in, double out) {
    return (promptTokens * in + completionTokens * out) / 1_000_000.0;
  }
}
