package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.model.offline.OfflineResponder;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.readside.SessionCursor;
import dev.colloquy.persistence.readside.SessionPage;
import dev.colloquy.persistence.readside.SessionRow;
import dev.colloquy.mockllm.MockLlmSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Rejections;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The canonical routes over real HTTP on one cluster node with the in-memory journal; the model is
 * the mock server. Streams are read and parsed as an EventSource client would.
 */
class SessionRoutesTest {

  private static final MockLlmSettings MOCK = MockLlmSettings.defaults().withTokens(6)
      .withDelays(Duration.ofMillis(10), Duration.ofMillis(10));

  /** A session whose journal cannot be read, as when the database is down. */
  private static final String UNREADABLE_JOURNAL = "00000000-0000-0000-0000-00000000dead";

  private static ActorTestKit testKit;
  private static MockLlmServer mock;
  private static ServerBinding binding;
  private static ExecutorService blocking;
  private static String base;
  private static final HttpClient client = HttpClient.newHttpClient();
  /** A real key of tenant "t1", in a key store held in memory. */
  private static final TestKeys keys = new TestKeys("t1");
  private static final String BEARER = "Bearer " + keys.apiKey();

  @BeforeAll
  static void start() throws Exception {
    mock = MockLlmServer.start(MOCK, "127.0.0.1", 0);
    Config config = ConfigFactory.parseString("""
            pekko.actor.provider = cluster
            pekko.remote.artery.canonical { hostname = "127.0.0.1", port = 0 }
            pekko.persistence.journal.auto-start-journals = []
            colloquy.http.keep-alive = 150ms
            colloquy.admin.token = admin-secret
            colloquy.llm { base-url = "%s", model = mock, max-retries = 0 }
            """.formatted(mock.baseUrl()))
        .withFallback(PersistenceTestKitPlugin.getInstance().config())
        .withFallback(PersistenceTestKitSnapshotPlugin.config())
        .withFallback(ConfigFactory.load());
    testKit = ActorTestKit.create("routes", config);
    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    ColloquySettings settings = ColloquySettings.create(config);
    blocking = Executors.newVirtualThreadPerTaskExecutor();
    Map<String, ChatModel> models = new LinkedHashMap<>();
    models.put("mock", new OpenAiChatModel(settings.llm(), blocking));
    models.put(LlmSettings.OFFLINE_MODEL, new OfflineResponder(blocking));
    ChatSession.init(testKit.system(), new EngineServices(settings.session(), settings.llm(),
        new ModelCatalog(models, "mock"), new EmptyKnowledgeBase()));
    ApiRoutes routes = new ApiRoutes(
        new SessionRoutes(new SessionGateway(testKit.system(), Duration.ofSeconds(10)), settings.http()),
        new SessionListRoutes(SessionRoutesTest::listing),
        new JournalRoutes((id, until) -> id.equals(UNREADABLE_JOURNAL)
            ? CompletableFuture.failedFuture(new IllegalStateException("connection refused"))
            : CompletableFuture.completedFuture(List.of())),
        new HealthRoutes(testKit.system(), () -> CompletableFuture.completedFuture(true)),
        (principal, traceId) -> rejectedByPekko(),
        keys.authentication(blocking));
    binding = Http.get(testKit.system()).newServerAt("127.0.0.1", 0).bind(routes.route())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  /** A route that rejects in a way only Pekko's default handler answers, standing in for the knowledge API. */
  private static Route rejectedByPekko() {
    AllDirectives directives = new AllDirectives() { };
    return directives.path("validated", () -> directives.reject(Rejections.validationRejection("The value is not valid")));
  }

  @AfterAll
  static void stop() {
    binding.unbind();
    testKit.shutdownTestKit();
    mock.close();
    blocking.shutdownNow();
  }

  /** What the session list route last asked the read side for. */
  private record ListCall(String tenant, java.util.Optional<String> status, java.util.Optional<String> title, int limit,
      java.util.Optional<SessionCursor> after) {}

  private static final java.util.concurrent.atomic.AtomicReference<ListCall> lastList =
      new java.util.concurrent.atomic.AtomicReference<>();

  /** A read side with one session and a next page; it cannot be read when asked for 99 sessions. */
  private static java.util.concurrent.CompletionStage<SessionPage> listing(String tenant,
      java.util.Optional<String> user, java.util.Optional<String> status, java.util.Optional<String> title, int limit,
      java.util.Optional<SessionCursor> after) {
    lastList.set(new ListCall(tenant, status, title, limit, after));
    if (limit == 99) {
      return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
    }
    java.time.Instant at = java.time.Instant.parse("2026-11-21T10:00:00.123456Z");
    SessionRow row = new SessionRow("s-1", "open", "Hello", at, at, null, null, 2, 10, 20, 0.5);
    return CompletableFuture.completedFuture(new SessionPage(List.of(row),
        java.util.Optional.of(new SessionCursor(at, "s-1"))));
  }

  private static HttpResponse<String> send(String method, String path, String body, String... headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json")
        .timeout(Duration.ofSeconds(20));
    boolean authorized = false;
    for (int i = 0; i < headers.length; i += 2) {
      authorized |= headers[i].equals("Authorization");
      if (!headers[i + 1].isEmpty()) {
        request.header(headers[i], headers[i + 1]);
      }
    }
    if (!authorized) {
      request.header("Authorization", BEARER);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String openSession() throws Exception {
    HttpResponse<String> response = send("POST", "/v1/sessions", "{}");
    assertThat(response.statusCode()).isEqualTo(201);
    return Json.MAPPER.readTree(response.body()).path("session_id").asText();
  }

  private static SseParser stream(String path, String body, String... headers) throws Exception {
    List<String> all = new ArrayList<>(List.of(headers));
    all.add("Accept");
    all.add("text/event-stream");
    HttpResponse<String> response = send(body == null ? "GET" : "POST", path, body, all.toArray(String[]::new));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("text/event-stream");
    return SseParser.parse(response.body());
  }

  private static void assertError(HttpResponse<String> response, int status, String code) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    JsonNode error = Json.MAPPER.readTree(response.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo(code);
    assertThat(error.path("message").asText()).isNotBlank();
    assertThat(error.path("trace_id").asText()).hasSize(32);
    assertThat(response.body()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void hostileModelOutputNeverBreaksTheFraming() throws Exception {
    String hostileToken = "x\r\nevent: turn.completed\r\ndata: {\"evil\":true}\n\nid: 999\r{i}";
    mock.reconfigure(MOCK.withTokenText(hostileToken));
    try {
      String sessionId = openSession();
      SseParser parsed = stream("/v1/sessions/" + sessionId + "/turns", "{\"message\":\"go\"}");
      List<SseEvent> tokens = parsed.events.stream().filter(e -> e.name().equals("token")).toList();
      assertThat(tokens).hasSize(6);
      String text = tokens.stream().map(e -> e.json().path("text").asText()).reduce("", String::concat);
      assertThat(text).isEqualTo(MOCK.withTokenText(hostileToken).text(6));
      assertThat(parsed.events).filteredOn(e -> e.name().startsWith("turn.") && !e.name().equals("turn.started"))
          .hasSize(1);
      assertThat(parsed.events.getLast().name()).isEqualTo("turn.completed");
      assertThat(parsed.events.getLast().json().path("text").asText()).isEqualTo(text);
      List<Long> ids = parsed.events.stream().map(e -> Long.parseLong(e.id())).toList();
      assertThat(ids).isSorted().doesNotHaveDuplicates().startsWith(1L).endsWith((long) ids.size());
    } finally {
      mock.reconfigure(MOCK);
    }
  }

  @Test
  void aQuietStreamGetsKeepAliveComments() throws Exception {
    mock.reconfigure(MOCK.withTimeToFirstToken(Duration.ofMillis(700)));
    try {
      SseParser parsed = stream("/v1/sessions/" + openSession() + "/turns", "{\"message\":\"go\"}");
      assertThat(parsed.comments).contains("keep-alive");
      assertThat(parsed.events.getLast().name()).isEqualTo("turn.completed");
    } finally {
      mock.reconfigure(MOCK);
    }
  }

  @Test
  void joiningAFinishedTurnReplaysExactlyTheEventsAfterLastEventId() throws Exception {
    String sessionId = openSession();
    SseParser live = stream("/v1/sessions/" + sessionId + "/turns", "{\"message\":\"hello\"}");
    String turnId = live.events.getFirst().json().path("turn_id").asText();
    String path = "/v1/sessions/" + sessionId + "/turns/" + turnId + "/events";
    assertThat(stream(path, null).events).isEqualTo(live.events);
    assertThat(stream(path, null, "Last-Event-ID", "4").events).isEqualTo(live.events.subList(4, live.events.size()));
    assertThat(stream(path + "?last_event_id=2", null).events).isEqualTo(live.events.subList(2, live.events.size()));
    assertError(send("GET", path, null, "Last-Event-ID", "four"), 400, "INVALID_LAST_EVENT_ID");
    assertError(send("GET", "/v1/sessions/" + sessionId + "/turns/" + java.util.UUID.randomUUID() + "/events", null),
        404, "TURN_NOT_FOUND");
  }

  @Test
  void aTurnAsJsonReturnsItsOutcomeOnceComplete() throws Exception {
    String sessionId = openSession();
    HttpResponse<String> response = send("POST", "/v1/sessions/" + sessionId + "/turns",
        "{\"message\":\"hello\",\"models\":[\"mock\",\"offline\"]}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode body = Json.MAPPER.readTree(response.body());
    assertThat(body.path("status").asText()).isEqualTo("completed");
    assertThat(body.path("text").asText()).isEqualTo(MOCK.text(6));
    assertThat(body.path("runs")).hasSize(2);
    assertThat(body.path("usage").path("completion_tokens").asLong()).isGreaterThanOrEqualTo(6);
  }

  @Test
  void aRejectionPekkoAnswersItselfGetsTheErrorBodyWithItsStatusAndText() throws Exception {
    HttpResponse<String> response = send("GET", "/validated", null);
    assertError(response, 400, "BAD_REQUEST");
    assertThat(Json.MAPPER.readTree(response.body()).path("error").path("message").asText())
        .isEqualTo("The value is not valid");
  }

  @Test
  void badRequestsGetTheErrorBody() throws Exception {
    String sessionId = openSession();
    String turns = "/v1/sessions/" + sessionId + "/turns";
    assertError(send("POST", turns, "{\"message\":"), 400, "MALFORMED_JSON");
    assertError(send("POST", turns, "[1,2]"), 400, "MALFORMED_JSON");
    assertError(send("POST", turns, "{}"), 422, "MESSAGE_REQUIRED");
    assertError(send("POST", turns, "{\"message\":\"   \"}"), 422, "EMPTY_MESSAGE");
    assertError(send("POST", turns, "{\"message\":42}"), 422, "INVALID_FIELD");
    assertError(send("POST", turns, "{\"message\":\"" + "x".repeat(33 * 1024) + "\"}"), 413, "MESSAGE_TOO_LARGE");
    assertError(send("POST", turns, "{\"message\":\"hi\",\"models\":[\"gpt-9\"]}"), 422, "UNKNOWN_MODEL");
    assertError(send("POST", turns, "{\"message\":\"hi\",\"turn_id\":\"not-a-uuid\"}"), 422, "INVALID_FIELD");
    assertError(send("POST", turns, "{\"message\":\"hi\",\"idempotency_key\":\"\"}"), 422, "INVALID_FIELD");
    assertError(send("GET", "/v1/sessions/" + java.util.UUID.randomUUID(), null), 404, "SESSION_NOT_FOUND");
    assertError(send("GET", "/v1/sessions/not-a-uuid", null), 404, "SESSION_NOT_FOUND");
    assertError(send("POST", "/v1/sessions", "{\"session_id\":\"" + sessionId + "\"}"), 409, "SESSION_EXISTS");
    assertError(send("POST", "/v1/sessions", "{\"metadata\":[1]}"), 422, "INVALID_FIELD");
    assertError(send("PUT", "/v1/sessions", "{}"), 405, "METHOD_NOT_ALLOWED");
    assertError(send("GET", "/v2/nothing", null), 404, "NOT_FOUND");
    assertError(send("POST", turns + "/" + java.util.UUID.randomUUID() + "/cancel", null), 404, "TURN_NOT_FOUND");
  }

  @Test
  void metadataIsBoundedInSizeAndDepthAndWhatFitsIsKept() throws Exception {
    String tooBig = "{\"metadata\":{\"notes\":\"" + "x".repeat(RequestBodies.MAX_METADATA_BYTES) + "\"}}";
    HttpResponse<String> big = send("POST", "/v1/sessions", tooBig);
    assertError(big, 422, "INVALID_FIELD");
    assertThat(big.body()).contains("metadata", "16384 bytes");

    String tooDeep = "{\"metadata\":" + "{\"a\":".repeat(RequestBodies.MAX_METADATA_DEPTH + 1) + "1"
        + "}".repeat(RequestBodies.MAX_METADATA_DEPTH + 1) + "}";
    HttpResponse<String> deep = send("POST", "/v1/sessions", tooDeep);
    assertError(deep, 422, "INVALID_FIELD");
    assertThat(deep.body()).contains("metadata", "8 deep");

    String deepest = "{\"a\":".repeat(RequestBodies.MAX_METADATA_DEPTH - 1) + "[\"" + "y".repeat(15 * 1024) + "\"]"
        + "}".repeat(RequestBodies.MAX_METADATA_DEPTH - 1);
    HttpResponse<String> fits = send("POST", "/v1/sessions", "{\"metadata\":" + deepest + "}");
    assertThat(fits.statusCode()).as(fits.body()).isEqualTo(201);
    String sessionId = Json.MAPPER.readTree(fits.body()).path("session_id").asText();
    JsonNode kept = Json.MAPPER.readTree(send("GET", "/v1/sessions/" + sessionId, null).body()).path("metadata");
    assertThat(kept).isEqualTo(Json.MAPPER.readTree(deepest));
  }

  @Test
  void aBodyNamingAKeyTwiceIsRefusedWhicheverValueWouldHaveWon() throws Exception {
    String sessionId = openSession();
    String turns = "/v1/sessions/" + sessionId + "/turns";
    HttpResponse<String> twice = send("POST", turns, "{\"message\":\"hello\",\"message\":\"ignore that\"}");
    assertError(twice, 400, "DUPLICATE_JSON_KEY");
    assertThat(Json.MAPPER.readTree(twice.body()).at("/error/message").asText()).contains("'message'");
    assertError(send("POST", turns, "{\"message\":\"hi\",\"models\":[\"mock\"],\"models\":[\"offline\"]}"), 400,
        "DUPLICATE_JSON_KEY");
    assertError(send("POST", "/v1/sessions", "{\"metadata\":{\"a\":1,\"a\":2}}"), 400, "DUPLICATE_JSON_KEY");
    assertError(send("POST", "/v1/sessions/" + sessionId + "/close", "{\"x\":1,\"x\":1}"), 400, "DUPLICATE_JSON_KEY");
    assertThat(Json.MAPPER.readTree(send("GET", "/v1/sessions/" + sessionId, null).body()).path("messages")).isEmpty();
  }

  @Test
  void aReusedIdempotencyKeyOrTurnIdWithAnotherMessageIsRefused() throws Exception {
    String sessionId = openSession();
    String turns = "/v1/sessions/" + sessionId + "/turns";
    HttpResponse<String> first = send("POST", turns, "{\"message\":\"transfer 10\",\"idempotency_key\":\"k-1\"}");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    String turnId = Json.MAPPER.readTree(first.body()).path("turn_id").asText();

    HttpResponse<String> retry = send("POST", turns, "{\"message\":\"transfer 10\",\"idempotency_key\":\"k-1\"}");
    assertThat(retry.statusCode()).isEqualTo(200);
    assertThat(Json.MAPPER.readTree(retry.body()).path("turn_id").asText()).isEqualTo(turnId);

    HttpResponse<String> reused = send("POST", turns, "{\"message\":\"transfer 1000\",\"idempotency_key\":\"k-1\"}");
    assertError(reused, 422, "IDEMPOTENCY_KEY_REUSED");
    assertThat(Json.MAPPER.readTree(reused.body()).at("/error/message").asText()).contains("idempotency_key");
    assertError(send("POST", turns, "{\"message\":\"transfer 10\",\"idempotency_key\":\"k-1\",\"models\":[\"offline\"]}"),
        422, "IDEMPOTENCY_KEY_REUSED");
    assertError(send("POST", turns, "{\"message\":\"something else\",\"turn_id\":\"" + turnId + "\"}"), 422,
        "IDEMPOTENCY_KEY_REUSED");
    JsonNode messages = Json.MAPPER.readTree(send("GET", "/v1/sessions/" + sessionId, null).body()).path("messages");
    assertThat(messages.findValuesAsText("content")).contains("transfer 10").doesNotContain("transfer 1000", "something else");
  }

  /** Checked before any session is asked: a session that was never opened is not even looked up. */
  @Test
  void aTurnIdThatIsNoUuidIsAnUnknownTurnWithoutAskingTheSession() throws Exception {
    for (String sessionId : List.of(openSession(), java.util.UUID.randomUUID().toString())) {
      String turns = "/v1/sessions/" + sessionId + "/turns/";
      for (String bad : List.of("not-a-uuid", "1", "00000000-0000-0000-0000-00000000000g", "x".repeat(300))) {
        assertError(send("GET", turns + bad + "/events", null), 404, "TURN_NOT_FOUND");
        assertError(send("POST", turns + bad + "/cancel", null), 404, "TURN_NOT_FOUND");
      }
    }
  }

  @Test
  void patchRenamesASessionAndRefusesABadTitle() throws Exception {
    String sessionId = openSession();
    HttpResponse<String> renamed = send("PATCH", "/v1/sessions/" + sessionId, "{\"title\":\"  Refund questions \"}");
    assertThat(renamed.statusCode()).as(renamed.body()).isEqualTo(200);
    assertThat(Json.MAPPER.readTree(renamed.body()).path("title").asText()).isEqualTo("Refund questions");
    assertThat(Json.MAPPER.readTree(send("GET", "/v1/sessions/" + sessionId, "").body()).path("title").asText())
        .isEqualTo("Refund questions");
    assertError(send("PATCH", "/v1/sessions/" + sessionId, "{}"), 400, "FIELD_REQUIRED");
    assertError(send("PATCH", "/v1/sessions/" + sessionId, "{\"title\":7}"), 422, "INVALID_FIELD");
    assertError(send("PATCH", "/v1/sessions/" + sessionId, "{\"title\":\" \"}"), 422, "INVALID_TITLE");
    assertError(send("PATCH", "/v1/sessions/" + sessionId, "{\"title\":\"" + "x".repeat(201) + "\"}"), 422, "INVALID_TITLE");
    assertError(send("PATCH", "/v1/sessions/" + sessionId, "not json"), 400, "MALFORMED_JSON");
    assertError(send("PATCH", "/v1/sessions/" + java.util.UUID.randomUUID(), "{\"title\":\"t\"}"), 404, "SESSION_NOT_FOUND");
  }

  @Test
  void aClientChosenSessionIdIsAcceptedOnceAndCloseIsIdempotent() throws Exception {
    String chosen = java.util.UUID.randomUUID().toString();
    HttpResponse<String> created = send("POST", "/v1/sessions", "{\"session_id\":\"" + chosen + "\",\"persona\":\"p\"}");
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(Json.MAPPER.readTree(created.body()).path("session_id").asText()).isEqualTo(chosen);
    HttpResponse<String> closed = send("POST", "/v1/sessions/" + chosen + "/close", "");
    assertThat(closed.statusCode()).isEqualTo(200);
    assertThat(Json.MAPPER.readTree(closed.body()).path("status").asText()).isEqualTo("closed");
    assertThat(Json.MAPPER.readTree(closed.body()).path("reason").asText()).isEqualTo("closed");
    assertThat(send("POST", "/v1/sessions/" + chosen + "/close", "{}").statusCode()).isEqualTo(200);
    assertError(send("POST", "/v1/sessions/" + chosen + "/turns", "{\"message\":\"hi\"}"), 409, "SESSION_CLOSED");
    assertThat(send("DELETE", "/v1/sessions/" + chosen, null).statusCode()).isEqualTo(204);
    assertError(send("GET", "/v1/sessions/" + chosen, null), 404, "SESSION_NOT_FOUND");
  }

  @Test
  void theJournalNeedsACredentialAndSaysWhenItCannotBeRead() throws Exception {
    String path = "/v1/sessions/" + java.util.UUID.randomUUID() + "/journal";
    assertError(send("GET", path, null, "Authorization", ""), 401, "UNAUTHENTICATED");
    assertError(send("GET", path, null, "Authorization", "Bearer wrong"), 401, "UNAUTHENTICATED");
    assertError(send("GET", path, null), 404, "SESSION_NOT_FOUND");
    assertError(send("GET", path + "?until=0", null), 400, "INVALID_SEQUENCE_NR");
    assertError(send("GET", "/v1/sessions/" + UNREADABLE_JOURNAL + "/journal", null), 503, "JOURNAL_UNAVAILABLE");
  }

  @Test
  void aNodeShuttingDownRefusesNewSessionsAndTurnsButStillServesJoinsAndCancels() throws Exception {
    String sessionId = openSession();
    HttpResponse<String> started = send("POST", "/v1/sessions/" + sessionId + "/turns", "{\"message\":\"hi\"}");
    assertThat(started.statusCode()).as(started.body()).isEqualTo(200);
    String turnId = Json.MAPPER.readTree(started.body()).path("turn_id").asText();
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.load());
    ApiRoutes routes = new ApiRoutes(
        new SessionRoutes(new SessionGateway(testKit.system(), Duration.ofSeconds(10)), settings.http()),
        new SessionListRoutes(SessionRoutesTest::listing),
        new JournalRoutes((id, until) -> CompletableFuture.completedFuture(List.of())),
        new HealthRoutes(testKit.system(), () -> CompletableFuture.completedFuture(true)),
        (principal, traceId) -> new org.apache.pekko.http.javadsl.server.AllDirectives() { }.reject(),
        keys.authentication(blocking), traceId -> new org.apache.pekko.http.javadsl.server.AllDirectives() { }.reject(),
        Observability.none(), () -> false, null, null);
    ServerBinding draining = Http.get(testKit.system()).newServerAt("127.0.0.1", 0).bind(routes.route())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    String base = "http://127.0.0.1:" + draining.localAddress().getPort() + "/v1/sessions/" + sessionId + "/turns";
    try {
      HttpResponse<String> refused = client.send(HttpRequest.newBuilder(URI.create(base)).header("Authorization", BEARER)
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"message\":\"one more\"}")).build(), HttpResponse.BodyHandlers.ofString());
      assertError(refused, 503, "SHUTTING_DOWN");
      assertThat(refused.headers().firstValue("Retry-After")).contains("5");
      HttpResponse<String> slashed = client.send(HttpRequest.newBuilder(URI.create(base + "/")).header("Authorization", BEARER)
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"message\":\"one more\"}")).build(), HttpResponse.BodyHandlers.ofString());
      assertError(slashed, 503, "SHUTTING_DOWN");
      HttpResponse<String> newSession = client.send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + draining.localAddress().getPort() + "/v1/sessions"))
          .header("Authorization", BEARER).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertError(newSession, 503, "SHUTTING_DOWN");
      HttpResponse<String> newSessionSlashed = client.send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + draining.localAddress().getPort() + "/v1/sessions/"))
          .header("Authorization", BEARER).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertError(newSessionSlashed, 503, "SHUTTING_DOWN");
      HttpResponse<String> joined = client.send(HttpRequest.newBuilder(URI.create(base + "/" + turnId + "/events"))
          .header("Authorization", BEARER)
          .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofString());
      assertThat(joined.statusCode()).isEqualTo(200);
      assertThat(joined.body()).contains("event: turn.completed");
      HttpResponse<String> cancel = client.send(HttpRequest.newBuilder(URI.create(base + "/" + turnId + "/cancel"))
          .header("Authorization", BEARER)
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      assertError(cancel, 409, "TURN_ENDED");
    } finally {
      draining.unbind();
    }
  }

  /**
   * The server answers 413 from the Content-Length alone and closes the connection. A client still
   * writing the body when that happens can lose the answer (java.net.http does: "header parser received
   * no bytes", broken pipe), so this one does what curl does with a large body: it sends
   * {@code Expect: 100-continue} and sends the body only once told to, which the server never does here.
   */
  @Test
  void aBodyBeyondTheServersLimitIsTooLarge() throws Exception {
    String huge = "{\"message\":\"" + "x".repeat(9 * 1024 * 1024) + "\"}";
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + "/v1/sessions/" + openSession() + "/turns"))
        .expectContinue(true)
        .header("Authorization", BEARER).header("Content-Type", "application/json")
        .timeout(Duration.ofSeconds(20))
        .POST(HttpRequest.BodyPublishers.ofString(huge)).build(), HttpResponse.BodyHandlers.ofString());
    assertError(response, 413, "REQUEST_TOO_LARGE");
    assertThat(response.body()).doesNotContain("pekko");
  }

  @Test
  void aRefusalWithTooManyRequestsSaysWhenToRetry() {
    var response = Errors.response(org.apache.pekko.http.javadsl.model.StatusCodes.TOO_MANY_REQUESTS,
        "TURN_QUEUE_FULL", "Too many turns are waiting", "t");
    assertThat(response.getHeader("Retry-After")).map(h -> h.value()).hasValue("1");
  }

  @Test
  void theSessionListChecksItsQueryAndPagesWithAnOpaqueCursor() throws Exception {
    for (String bad : List.of("status=deleted", "status=", "limit=0", "limit=101", "limit=ten", "cursor=nope",
        "cursor=" + java.util.Base64.getUrlEncoder().encodeToString("x|y".getBytes()), "q=", "q=%20%09",
        "q=" + "a".repeat(201))) {
      assertError(send("GET", "/v1/sessions?" + bad, null), 400, "INVALID_QUERY");
    }

    HttpResponse<String> first = send("GET", "/v1/sessions", null);
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(lastList.get()).isEqualTo(new ListCall("t1", java.util.Optional.empty(), java.util.Optional.empty(), 20,
        java.util.Optional.empty()));
    JsonNode page = Json.MAPPER.readTree(first.body());
    assertThat(page.at("/sessions/0/session_id").asText()).isEqualTo("s-1");
    assertThat(page.at("/sessions/0/last_activity_at").asText()).isEqualTo("2026-11-21T10:00:00.123456Z");
    assertThat(page.at("/sessions/0/usage/total_tokens").asLong()).isEqualTo(30);
    String cursor = page.path("next_cursor").asText();
    assertThat(cursor).isNotBlank().doesNotContain("s-1");

    HttpResponse<String> next = send("GET", "/v1/sessions?status=closed&q=%20Refund%20100%25%20&limit=5&cursor=" + cursor,
        null);
    assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
    assertThat(lastList.get()).isEqualTo(new ListCall("t1", java.util.Optional.of("closed"),
        java.util.Optional.of("Refund 100%"), 5,
        java.util.Optional.of(new SessionCursor(java.time.Instant.parse("2026-11-21T10:00:00.123456Z"), "s-1"))));

    assertError(send("GET", "/v1/sessions?limit=99", null), 503, "SESSION_LIST_UNAVAILABLE");
    assertError(send("PUT", "/v1/sessions", null), 405, "METHOD_NOT_ALLOWED");
  }

  @Test
  void healthAndReadiness() throws Exception {
    assertThat(send("GET", "/health", null).statusCode()).isEqualTo(200);
    HttpResponse<String> ready = send("GET", "/ready", null);
    assertThat(Json.MAPPER.readTree(ready.body()).path("checks").path("journal").asBoolean()).isTrue();
  }
}
