package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantConfiguration;
import dev.colloquy.engine.tenant.TenantLimiter;
import dev.colloquy.engine.tenant.TenantUsage;
import dev.colloquy.http.cors.Cors;
import dev.colloquy.http.limits.LimitKind;
import dev.colloquy.http.limits.RateLimits;
import dev.colloquy.http.tenant.TenantConfigRoutes;
import dev.colloquy.http.tenant.TenantConfigs;
import dev.colloquy.persistence.readside.SessionPage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.YearMonth;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tenant configuration, limits and the browser rules over real HTTP on one cluster node with the
 * in-memory journal. Until credentials exist every request is the tenant {@code default}'s; the
 * limits are exercised through a route that applies {@link RateLimits#limited} as the API routes will.
 */
class TenantRoutesTest {

  private static final String TENANT = SessionRoutes.DEFAULT_TENANT;
  private static final TestKeys KEYS = new TestKeys(TENANT);
  private static final String ALLOWED = "https://app.example.com";

  private static ActorTestKit testKit;
  private static ServerBinding binding;
  private static String base;
  private static final HttpClient client = HttpClient.newHttpClient();
  private static final AtomicLong openSessions = new AtomicLong();
  private static final AtomicLong tokensUsed = new AtomicLong();

  @BeforeAll
  static void start() throws Exception {
    Config config = ConfigFactory.parseString("""
            pekko.actor.provider = cluster
            pekko.remote.artery.canonical { hostname = "127.0.0.1", port = 0 }
            pekko.persistence.journal.auto-start-journals = []
            colloquy.cors.origins = "%s"
            """.formatted(ALLOWED))
        .withFallback(PersistenceTestKitPlugin.getInstance().config())
        .withFallback(PersistenceTestKitSnapshotPlugin.config())
        .withFallback(ConfigFactory.load());
    testKit = ActorTestKit.create("tenant-routes", config);
    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    ColloquySettings settings = ColloquySettings.create(config);
    TenantConfiguration.init(testKit.system(), TenantConfig.defaults(settings.limits(), 1800, "mock"),
        Set.of("mock", "offline"));
    TenantLimiter.init(testKit.system(), settings.limits().streamLease());
    TenantConfigs configs = new TenantConfigs(testKit.system(), Duration.ofSeconds(10));
    TenantConfigRoutes configRoutes = new TenantConfigRoutes(configs);
    RateLimits limits = new RateLimits(testKit.system(), configs, new CountingUsage(), Duration.ofSeconds(10),
        Clock.systemUTC());
    ApiRoutes api = new ApiRoutes(
        new SessionRoutes(new SessionGateway(testKit.system(), Duration.ofSeconds(10)), settings.http()),
        new SessionListRoutes((tenant, user, status, title, limit, after) ->
            CompletableFuture.completedFuture(new SessionPage(List.of(), Optional.empty()))),
        new JournalRoutes((id, until) -> CompletableFuture.completedFuture(List.of())),
        new HealthRoutes(testKit.system(), () -> CompletableFuture.completedFuture(true)),
        (principal, traceId) -> configRoutes.route(principal.tenantId(), traceId),
        KEYS.authentication(Runnable::run), traceId -> new AllDirectives() { }.reject(), Observability.none(),
        () -> true, new Cors(settings.cors(), configs), null);
    Cors cors = new Cors(settings.cors(), configs);
    AllDirectives d = new AllDirectives() { };
    Route limited = d.pathPrefix("limited", () -> d.path(org.apache.pekko.http.javadsl.server.PathMatchers.segment(), kind -> d.headerValueByName("X-Credential",
        credential -> d.optionalHeaderValueByName("X-User", user -> limits.limited(TENANT, credential,
            user.orElse(null), LimitKind.valueOf(kind), "trace-limited", () -> d.complete("ok"))))));
    Route browser = d.path("browser", () -> cors.allowedOrigin(TENANT, "trace-browser", () -> d.complete("ok")));
    binding = Http.get(testKit.system()).newServerAt("127.0.0.1", 0).bind(d.concat(limited, browser, api.route()))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  @AfterAll
  static void stop() {
    binding.unbind();
    testKit.shutdownTestKit();
  }

  private static final class CountingUsage implements TenantUsage {
    @Override
    public CompletionStage<Long> openSessions(String tenantId) {
      return CompletableFuture.completedFuture(openSessions.get());
    }

    @Override
    public CompletionStage<Long> tokensUsed(String tenantId, YearMonth month) {
      return CompletableFuture.completedFuture(tokensUsed.get());
    }
  }

  private static HttpResponse<String> send(String method, String path, String contentType, String body,
      String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(20));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    request.header("Authorization", "Bearer " + KEYS.apiKey());
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> put(String body) throws Exception {
    return send("PUT", "/v1/config", "application/json", body);
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return Json.MAPPER.readTree(response.body());
  }

  // ---- configuration ----

  @Test
  void putChangesTheNamedFieldsAndGetShowsThemWithTheVersion() throws Exception {
    long before = json(send("GET", "/v1/config", null, null)).path("version").asLong();
    HttpResponse<String> put = put("""
        {"persona_name": "Aria", "persona_description": "Friendly support agent for MediCare Clinics",
         "escalation_threshold": 0.5, "auto_resolve_threshold": 0.85, "max_turns_before_escalation": 12,
         "allowed_topics": ["appointments", "billing"], "blocked_topics": ["competitor_comparison"],
         "fan_out_models": ["offline"], "languages": ["en", "pt-BR"], "max_tokens": 512}""");
    assertThat(put.statusCode()).isEqualTo(200);
    assertThat(json(put).path("version").asLong()).isEqualTo(before + 1);

    HttpResponse<String> get = send("GET", "/v1/config", null, null);
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode config = json(get);
    assertThat(config.path("persona_name").asText()).isEqualTo("Aria");
    assertThat(config.path("escalation_threshold").asDouble()).isEqualTo(0.5);
    assertThat(config.path("max_turns_before_escalation").asInt()).isEqualTo(12);
    assertThat(config.path("blocked_topics").get(0).asText()).isEqualTo("competitor_comparison");
    assertThat(config.path("languages").toString()).isEqualTo("[\"en\",\"pt-BR\"]");
    assertThat(config.path("default_model").asText()).isEqualTo("mock");
    assertThat(config.path("version").asLong()).isEqualTo(before + 1);
    assertThat(config.path("updated_at").asText()).isNotBlank();
    assertThat(config.has("webhook_secret")).isFalse();
  }

  @Test
  void eachBadFieldGets422NamingIt() throws Exception {
    List<List<String>> cases = List.of(
        List.of("{\"escalation_threshold\": 1.5}", "escalation_threshold"),
        List.of("{\"escalation_threshold\": \"high\"}", "escalation_threshold"),
        List.of("{\"max_turns_before_escalation\": 0}", "max_turns_before_escalation"),
        List.of("{\"max_turns_before_escalation\": 2.5}", "max_turns_before_escalation"),
        List.of("{\"escalation_webhook_url\": \"not a url\"}", "escalation_webhook_url"),
        List.of("{\"allowed_topics\": \"billing\"}", "allowed_topics"),
        List.of("{\"default_model\": \"gpt-unknown\"}", "default_model"),
        List.of("{\"allowed_origins\": [\"*\"]}", "allowed_origins"),
        List.of("{\"turns_per_minute\": 0}", "turns_per_minute"),
        List.of("{\"idle_timeout_seconds\": 1}", "idle_timeout_seconds"),
        List.of("{\"languages\": [\"not a language\"]}", "languages"),
        List.of("{\"persona_nmae\": \"Aria\"}", "persona_nmae"));
    long version = json(send("GET", "/v1/config", null, null)).path("version").asLong();
    for (List<String> c : cases) {
      HttpResponse<String> response = put(c.get(0));
      assertThat(response.statusCode()).as(c.get(0)).isEqualTo(422);
      JsonNode error = json(response).path("error");
      assertThat(error.path("code").asText()).isEqualTo("INVALID_CONFIG");
      assertThat(error.path("field").asText()).as(c.get(0)).isEqualTo(c.get(1));
      assertThat(error.path("message").asText()).contains(c.get(1));
      assertThat(error.path("trace_id").asText()).hasSize(32);
    }
    assertThat(json(send("GET", "/v1/config", null, null)).path("version").asLong()).isEqualTo(version);
    assertThat(put("[1]").statusCode()).isEqualTo(400);
    assertThat(put("{").statusCode()).isEqualTo(400);
    HttpResponse<String> twice = put("{\"escalation_threshold\": 0.9, \"escalation_threshold\": 0.1}");
    assertThat(twice.statusCode()).as(twice.body()).isEqualTo(400);
    assertThat(json(twice).at("/error/code").asText()).isEqualTo("DUPLICATE_JSON_KEY");
    assertThat(json(twice).at("/error/message").asText()).contains("escalation_threshold");
    assertThat(json(send("GET", "/v1/config", null, null)).path("version").asLong()).isEqualTo(version);
  }

  @Test
  void theWebhookSecretIsShownOnceWhenTheUrlIsFirstSet() throws Exception {
    HttpResponse<String> first = put("{\"escalation_webhook_url\": \"https://enterprise.example/webhooks/escalation\"}");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(json(first).path("webhook_secret").asText()).matches("whsec_[A-Za-z0-9+/=]{32,}");
    assertThat(json(first).path("escalation_webhook_url").asText())
        .isEqualTo("https://enterprise.example/webhooks/escalation");

    HttpResponse<String> again = put("{\"escalation_webhook_url\": \"https://enterprise.example/other\"}");
    assertThat(json(again).has("webhook_secret")).isFalse();
    assertThat(send("GET", "/v1/config", null, null).body()).doesNotContain("whsec_");
  }

  // ---- limits ----

  @Test
  void theTurnAfterTheMinutesWorthGets429WithRetryAfter() throws Exception {
    assertThat(put("{\"turns_per_minute\": 3}").statusCode()).isEqualTo(200);
    for (int i = 0; i < 3; i++) {
      assertThat(send("GET", "/limited/TURN", null, null, "X-Credential", "key-turns").statusCode()).isEqualTo(200);
    }
    HttpResponse<String> refused = send("GET", "/limited/TURN", null, null, "X-Credential", "key-turns");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("20");
    JsonNode error = json(refused).path("error");
    assertThat(error.path("code").asText()).isEqualTo("RATE_LIMITED");
    assertThat(error.path("trace_id").asText()).isEqualTo("trace-limited");

    assertThat(send("GET", "/limited/TURN", null, null, "X-Credential", "another-key").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/limited/REQUEST", null, null, "X-Credential", "key-turns").statusCode()).isEqualTo(200);
  }

  @Test
  void aUserIsLimitedWhateverCredentialItComesWith() throws Exception {
    assertThat(put("{\"requests_per_minute\": 2}").statusCode()).isEqualTo(200);
    try {
      assertThat(send("GET", "/limited/REQUEST", null, null, "X-Credential", "k1", "X-User", "u1").statusCode())
          .isEqualTo(200);
      assertThat(send("GET", "/limited/REQUEST", null, null, "X-Credential", "k2", "X-User", "u1").statusCode())
          .isEqualTo(200);
      assertThat(send("GET", "/limited/REQUEST", null, null, "X-Credential", "k3", "X-User", "u1").statusCode())
          .isEqualTo(429);
    } finally {
      put("{\"requests_per_minute\": 600}");
    }
  }

  @Test
  void quotasAnswer429QuotaExceeded() throws Exception {
    openSessions.set(1000);
    HttpResponse<String> sessions = send("GET", "/limited/SESSION", null, null, "X-Credential", "k-sessions");
    openSessions.set(0);
    assertThat(sessions.statusCode()).isEqualTo(429);
    assertThat(json(sessions).path("error").path("code").asText()).isEqualTo("QUOTA_EXCEEDED");
    assertThat(sessions.headers().firstValue("Retry-After")).hasValue("60");

    assertThat(put("{\"monthly_token_budget\": 1000}").statusCode()).isEqualTo(200);
    tokensUsed.set(1000);
    HttpResponse<String> tokens = send("GET", "/limited/STREAM", null, null, "X-Credential", "k-tokens");
    tokensUsed.set(0);
    put("{\"monthly_token_budget\": 0}");
    assertThat(tokens.statusCode()).isEqualTo(429);
    assertThat(json(tokens).path("error").path("code").asText()).isEqualTo("QUOTA_EXCEEDED");
    assertThat(Long.parseLong(tokens.headers().firstValue("Retry-After").orElseThrow())).isPositive();
  }

  // ---- browsers ----

  @Test
  void aPreflightIsAnsweredWithTheOriginEchoedNeverAWildcard() throws Exception {
    HttpResponse<String> preflight = send("OPTIONS", "/v1/config", null, null, "Origin", ALLOWED,
        "Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "authorization, content-type");
    assertThat(preflight.statusCode()).isEqualTo(204);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ALLOWED);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods").orElseThrow()).contains("PUT");
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers").orElseThrow()).contains("Authorization");
    assertThat(preflight.headers().firstValue("Vary")).hasValue("Origin");
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Credentials")).isEmpty();

    HttpResponse<String> refused = send("OPTIONS", "/v1/config", null, null, "Origin", "null",
        "Access-Control-Request-Method", "PUT");
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(json(refused).path("error").path("code").asText()).isEqualTo("ORIGIN_NOT_ALLOWED");
    assertThat(refused.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
  }

  @Test
  void aRequestFromAnAllowedOriginGetsTheCorsHeaders() throws Exception {
    HttpResponse<String> get = send("GET", "/v1/config", null, null, "Origin", ALLOWED);
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ALLOWED);
    assertThat(get.headers().firstValue("Vary")).hasValue("Origin");

    HttpResponse<String> other = send("GET", "/v1/config", null, null, "Origin", "https://evil.example");
    assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    assertThat(other.headers().firstValue("Vary")).hasValue("Origin");
  }

  @Test
  void anOriginTheTenantDoesNotAllowIsRefused() throws Exception {
    assertThat(put("{\"allowed_origins\": [\"https://widget.example\"]}").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/browser", null, null, "Origin", "https://widget.example").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/browser", null, null, "Origin", ALLOWED).statusCode()).isEqualTo(200);
    assertThat(send("GET", "/browser", null, null).statusCode()).isEqualTo(200);
    HttpResponse<String> refused = send("GET", "/browser", null, null, "Origin", "https://evil.example");
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(json(refused).path("error").path("code").asText()).isEqualTo("ORIGIN_NOT_ALLOWED");
  }

  @Test
  void jsonEndpointsRefuseOtherContentTypesWith415() throws Exception {
    for (String path : List.of("/v1/sessions", "/v1/config")) {
      String method = path.equals("/v1/config") ? "PUT" : "POST";
      HttpResponse<String> plain = send(method, path, "text/plain", "{\"persona_name\": \"x\"}");
      assertThat(plain.statusCode()).as(path).isEqualTo(415);
      assertThat(json(plain).path("error").path("code").asText()).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
      assertThat(send(method, path, "application/x-www-form-urlencoded", "a=b").statusCode()).isEqualTo(415);
      assertThat(send(method, path, "multipart/form-data; boundary=x", "--x--").statusCode()).isEqualTo(415);
    }
    assertThat(send("PUT", "/v1/config", "application/json; charset=utf-8", "{}").statusCode()).isEqualTo(200);
    assertThat(send("POST", "/v1/knowledge/ingest", "multipart/form-data; boundary=x", "--x--").statusCode())
        .as("an upload with its boundary passes the JSON-only rule").isNotEqualTo(415);
  }
}
