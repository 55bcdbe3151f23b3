package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.mockllm.MockLlmSettings;
import dev.colloquy.persistence.tenant.TenantStore;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Support agent contract over HTTP on the real node, as its widget and backend clients use it:
 * the tenant's key in {@code X-API-Key}, sessions started for an end user, messages answered with
 * confidence and sources (with chunk ids) as JSON or streamed as {@code {delta, done}}, transcripts,
 * sessions ended as {@code resolved}; a missing, foreign or closed session is {@code INVALID_SESSION}.
 */
class SupportAgentIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String WIDGET_ORIGIN = "https://shop.example.in";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  @BeforeAll
  static void knowledgeAndWidget() throws Exception {
    Api.Response upload = upload("returns.md", "# Returns\n\n## Return window\n\nItems can be returned within 30 days"
        + " of delivery with the receipt.\n", "policy");
    assertThat(upload.status()).as(upload.body()).isEqualTo(202);
    assertThat(app.api().settled(upload.json().path("document_id").asText()).path("status").asText()).isEqualTo("ready");
    Api.Response config = app.api().send("PUT", "/v1/config",
        "{\"allowed_origins\": [\"" + WIDGET_ORIGIN + "\"], \"persona_name\": \"Aria\"}");
    assertThat(config.status()).as(config.body()).isEqualTo(200);
    assertThat(config.json().path("updated").asBoolean()).as(config.body()).isTrue();
  }

  private static String key() {
    return app.api().apiKey();
  }

  private static String base() {
    return app.colloquy().baseUrl();
  }

  private static Credentialed.Reply send(String method, String path, String body, String... headers) throws Exception {
    String[] all = new String[headers.length + 2];
    all[0] = "X-API-Key";
    all[1] = key();
    System.arraycopy(headers, 0, all, 2, headers.length);
    return Credentialed.send(base(), method, path, body, all);
  }

  private static String start(String externalUserId) throws Exception {
    Credentialed.Reply started = send("POST", "/v1/session/start",
        "{\"external_user_id\": \"" + externalUserId + "\", \"metadata\": {\"channel\": \"widget\"}}");
    assertThat(started.status()).as(started.body()).isEqualTo(200);
    return started.json().path("session_id").asText();
  }

  private static ObjectNode message(String sessionId, String text) {
    return Api.JSON.createObjectNode().put("session_id", sessionId).put("message", text);
  }

  /**
   * The contract's transcript has no paging: it holds every message, from the session's first, also
   * those its entity no longer keeps (the read side's), where the canonical session route gives the
   * newest hundred and pages back to the rest.
   */
  @Test
  void aTranscriptHoldsEveryMessageWhereTheCanonicalRoutePagesThem() throws Exception {
    Api.Response opened = app.api().post("/v1/sessions", "{}");
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    String sessionId = opened.json().path("session_id").asText();
    for (int turn = 1; turn <= 51; turn++) {
      Api.Response answered = app.api().post("/v1/sessions/" + sessionId + "/turns", Api.turn("Question " + turn));
      assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    }

    Credentialed.Reply transcript = send("GET", "/v1/session/" + sessionId + "/transcript", null);
    assertThat(transcript.status()).as(transcript.body()).isEqualTo(200);
    JsonNode lines = transcript.json().path("messages");
    assertThat(lines).hasSize(102);
    for (int turn = 1; turn <= 51; turn++) {
      assertThat(lines.get(2 * (turn - 1)).path("content").asText()).isEqualTo("Question " + turn);
      assertThat(lines.get(2 * turn - 1).path("role").asText()).isEqualTo("assistant");
    }
    assertThat(transcript.json().has("truncated")).isFalse();

    JsonNode newest = app.api().session(sessionId);
    assertThat(newest.path("messages")).hasSize(100);
    Api.Response rest = app.api().get("/v1/sessions/" + sessionId + "?before=" + newest.path("next_before").asText());
    assertThat(rest.status()).as(rest.body()).isEqualTo(200);
    assertThat(rest.json().path("messages")).extracting(m -> m.path("role").asText() + ":" + m.path("content").asText())
        .hasSize(2).first().isEqualTo("user:Question 1");
    assertThat(rest.json().path("next_before").isNull()).as(rest.body()).isTrue();
  }

  @Test
  void theHealthRouteAnswersWithoutACredential() throws Exception {
    Credentialed.Reply health = Credentialed.get(base(), "/v1/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().properties()).extracting(Map.Entry::getKey).containsExactly("status", "version");
    assertThat(health.json().path("status").asText()).isEqualTo("ok");
    assertThat(health.json().path("version").asText()).matches("\\d+\\.\\d+\\.\\d+");
    assertThat(Credentialed.get(base(), "/health").status()).as("both seeds' health routes answer").isEqualTo(200);
  }

  @Test
  void aSessionIsStartedAnsweredAsJsonReadBackAndEndedResolved() throws Exception {
    Credentialed.Reply started = send("POST", "/v1/session/start", "{\"external_user_id\": \"cust-42\"}");
    assertThat(started.status()).as(started.body()).isEqualTo(200);
    assertThat(started.json().properties()).extracting(Map.Entry::getKey).containsExactly("session_id", "created_at");
    String sessionId = started.json().path("session_id").asText();
    assertThat(UUID.fromString(sessionId).toString()).isEqualTo(sessionId);

    Credentialed.Reply answered = send("POST", "/v1/chat/message",
        message(sessionId, "How many days do I have to return an item?").toString());
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    JsonNode answer = answered.json();
    assertThat(answer.properties()).extracting(Map.Entry::getKey).containsExactly("message_id", "response",
        "confidence", "sources", "escalation_required", "escalation_reason", "latency_ms");
    assertThat(answer.path("response").asText()).isEqualTo(MockLlmSettings.defaults().text(MockLlmSettings.defaults().tokens()));
    assertThat(answer.path("confidence").asDouble()).isBetween(0.0, 1.0);
    assertThat(answer.path("sources")).isNotEmpty();
    JsonNode source = answer.path("sources").get(0);
    assertThat(source.properties()).extracting(Map.Entry::getKey).containsExactly("chunk_id", "document", "section");
    assertThat(UUID.fromString(source.path("chunk_id").asText())).isNotNull();
    assertThat(source.path("document").asText()).isEqualTo("returns.md");
    assertThat(source.path("section").asText()).isEqualTo("Return window");
    assertThat(answer.path("escalation_required").asBoolean()).isFalse();
    assertThat(answer.path("escalation_reason").isNull()).isTrue();
    assertThat(answer.path("latency_ms").asLong()).isPositive();

    Credentialed.Reply transcript = send("GET", "/v1/session/" + sessionId + "/transcript", null);
    assertThat(transcript.status()).isEqualTo(200);
    assertThat(transcript.json().path("session_id").asText()).isEqualTo(sessionId);
    assertThat(transcript.json().path("messages")).extracting(m -> m.path("role").asText()).containsExactly("user", "assistant");
    assertThat(transcript.json().path("messages").get(0).properties()).extracting(Map.Entry::getKey)
        .containsExactly("role", "content", "created_at");
    assertThat(transcript.json().path("messages").get(1).path("content").asText()).isEqualTo(answer.path("response").asText());

    Credentialed.Reply ended = send("POST", "/v1/session/" + sessionId + "/end", null);
    assertThat(ended.status()).as(ended.body()).isEqualTo(200);
    assertThat(ended.json().path("session_id").asText()).isEqualTo(sessionId);
    assertThat(ended.json().path("status").asText()).isEqualTo("resolved");
    assertThat(ended.json().path("summary").path("total_messages").asInt()).isEqualTo(2);
    // The answer's tokens, and those of the agent's own model calls (routing, noting facts), billed with the turn.
    assertThat(ended.json().path("summary").path("total_output_tokens").asLong())
        .isGreaterThan(MockLlmSettings.defaults().tokens());
    assertThat(send("POST", "/v1/session/" + sessionId + "/end", null).json().path("status").asText())
        .as("ending twice is harmless").isEqualTo("resolved");

    Credentialed.Reply afterEnd = send("POST", "/v1/chat/message", message(sessionId, "One more thing").toString());
    assertThat(afterEnd.status()).isEqualTo(404);
    Credentialed.assertErrorBody(afterEnd, "INVALID_SESSION", "a message to an ended session");
    assertThat(afterEnd.json().path("error").path("message").asText()).isEqualTo("Session not found or expired");
    assertThat(app.api().session(sessionId).path("messages")).hasSize(2);
  }

  @Test
  void aMessageStreamsDeltasThenDoneWithTheMetadataAndResumesAfterLastEventId() throws Exception {
    String sessionId = start("cust-7");
    List<SseEvent> events;
    try (SseClient stream = SeedStreams.post(base(), "/v1/chat/message",
        message(sessionId, "Can I return an item?").put("stream", true).toString(), "X-API-Key", key())) {
      events = stream.readToEnd(WAIT);
    }

    assertThat(events).allSatisfy(e -> assertThat(e.event()).isEqualTo("message"));
    List<SseEvent> deltas = events.subList(0, events.size() - 1);
    assertThat(deltas).allSatisfy(e -> assertThat(e.json().properties()).extracting(Map.Entry::getKey)
        .containsExactly("delta", "done"));
    assertThat(deltas).allSatisfy(e -> assertThat(e.json().path("done").asBoolean()).isFalse());
    assertThat(deltas.stream().map(e -> e.text("delta")).collect(Collectors.joining()))
        .isEqualTo(MockLlmSettings.defaults().text(MockLlmSettings.defaults().tokens()));
    JsonNode done = events.getLast().json();
    assertThat(done.path("done").asBoolean()).isTrue();
    assertThat(done.path("metadata").properties()).extracting(Map.Entry::getKey).containsExactly("message_id",
        "confidence", "sources", "escalation_required", "escalation_reason", "latency_ms");
    assertThat(done.path("metadata").path("sources").get(0).path("document").asText()).isEqualTo("returns.md");

    List<SseEvent> resumed;
    try (SseClient stream = SeedStreams.get(base(), "/v1/chat/message/stream?session_id=" + sessionId
        + "&message=" + URLEncoder.encode("Can I return an item?", StandardCharsets.UTF_8),
        "X-API-Key", key(), "Last-Event-ID", events.get(2).id())) {
      resumed = stream.readToEnd(WAIT);
    }
    assertThat(resumed).extracting(SseEvent::id).isEqualTo(events.subList(3, events.size()).stream().map(SseEvent::id).toList());
    Credentialed.Reply over = send("GET", "/v1/chat/message/stream?session_id=" + sessionId + "&message=x", null,
        "Last-Event-ID", events.getLast().id());
    assertThat(over.status()).as("an EventSource that has every frame is told to stop").isEqualTo(204);
    assertThat(app.api().session(sessionId).path("messages")).as("no second turn").hasSize(2);
  }

  @Test
  void theEventSourceRouteStreamsANewTurnFromItsQuery() throws Exception {
    String sessionId = start("cust-8");
    List<SseEvent> events;
    try (SseClient stream = SeedStreams.get(base(), "/v1/chat/message/stream?session_id=" + sessionId + "&message="
        + URLEncoder.encode("What is the return window?", StandardCharsets.UTF_8), "X-API-Key", key())) {
      assertThat(stream.response().headers().firstValue("Cache-Control")).hasValue("no-cache");
      events = stream.readToEnd(WAIT);
    }
    assertThat(events.getLast().json().path("done").asBoolean()).isTrue();
    assertThat(events.getLast().json().path("metadata").path("message_id").asText())
        .isEqualTo(app.api().session(sessionId).path("messages").get(1).path("message_id").asText());
  }

  @Test
  void badRequestsForeignSessionsAndATurnInProgressAreRefusedInTheContractsShape() throws Exception {
    String sessionId = start("cust-9");
    String otherKey = new TenantStore(app.colloquy().database().dataSource()).create("support-other").key().apiKey();

    assertError(send("POST", "/v1/chat/message", "{\"session_id\": \"" + sessionId + "\"}"), 422, "MESSAGE_REQUIRED");
    assertError(send("POST", "/v1/chat/message", message(sessionId, "Hi").put("stream", "yes").toString()), 422,
        "INVALID_FIELD");
    assertError(send("POST", "/v1/chat/message", message(sessionId, "Hi").put("message", 3).toString()), 422,
        "INVALID_FIELD");
    assertError(send("POST", "/v1/chat/message", "{\"message\": \"Hi\"}"), 400, "FIELD_REQUIRED");
    assertError(send("POST", "/v1/chat/message", "not json"), 400, "MALFORMED_JSON");
    assertError(send("POST", "/v1/session/start", "{\"external_user_id\": 42}"), 422, "INVALID_FIELD");
    assertError(send("POST", "/v1/session/start", "{\"metadata\": []}"), 422, "INVALID_FIELD");
    assertError(send("GET", "/v1/chat/message/stream?session_id=" + sessionId, null), 422, "MESSAGE_REQUIRED");

    Credentialed.Reply foreign = Credentialed.send(base(), "POST", "/v1/chat/message", message(sessionId, "Hi").toString(),
        "X-API-Key", otherKey);
    Credentialed.Reply missing = send("POST", "/v1/chat/message", message(UUID.randomUUID().toString(), "Hi").toString());
    Credentialed.Reply notAnId = send("POST", "/v1/chat/message", message("session-9", "Hi").toString());
    Credentialed.Reply foreignTranscript = Credentialed.send(base(), "GET", "/v1/session/" + sessionId + "/transcript",
        null, "X-API-Key", otherKey);
    Credentialed.Reply foreignEnd = Credentialed.send(base(), "POST", "/v1/session/" + sessionId + "/end", null,
        "X-API-Key", otherKey);
    for (Credentialed.Reply refused : List.of(foreign, missing, notAnId, foreignTranscript, foreignEnd)) {
      assertError(refused, 404, "INVALID_SESSION");
    }
    assertThat(app.api().session(sessionId).path("status").asText()).as("not ended by another tenant").isEqualTo("open");

    MockLlmSettings normal = app.mock().settings();
    app.mock().reconfigure(TestColloquy.slowMock());
    try (SseClient running = SeedStreams.post(base(), "/v1/chat/message",
        message(sessionId, "Talk for a long time").put("stream", true).toString(), "X-API-Key", key())) {
      assertThat(running.next(WAIT).json().path("done").asBoolean()).isFalse();
      assertError(send("POST", "/v1/chat/message", message(sessionId, "And another").toString()), 409, "TURN_IN_PROGRESS");
    } finally {
      app.mock().reconfigure(normal);
    }
  }

  @Test
  void uploadsKeepTheirDocumentTypeAndAnUnknownOneIsRefused() throws Exception {
    Api.Response faq = upload("faq.md", "# FAQ\n\n## Shipping\n\nWe ship in 3 days.\n", "faq");
    assertThat(faq.status()).as(faq.body()).isEqualTo(202);
    assertThat(faq.json().path("document_type").asText()).isEqualTo("faq");
    String documentId = faq.json().path("document_id").asText();
    assertThat(app.api().settled(documentId).path("document_type").asText()).isEqualTo("faq");
    assertThat(app.api().get("/v1/knowledge/list").json().path("documents").valueStream()
        .filter(d -> d.path("id").asText().equals(documentId)).findFirst().orElseThrow()
        .path("document_type").asText()).isEqualTo("faq");

    Api.Response bad = upload("memo.md", "# Memo\n\nHello.\n", "memo");
    assertThat(bad.status()).as(bad.body()).isEqualTo(422);
    assertThat(bad.json().path("error").path("code").asText()).isEqualTo("INVALID_FIELD");
    assertThat(bad.json().path("error").path("message").asText()).contains("faq, policy, product_catalog, sop");
    assertThat(app.api().get("/v1/knowledge/list").json().path("documents"))
        .extracting(d -> d.path("filename").asText()).doesNotContain("memo.md");
  }

  @Test
  void theWidgetsOriginReachesTheRoutesItCalls() throws Exception {
    Credentialed.Reply preflight = Credentialed.send(base(), "OPTIONS", "/v1/session/start", null,
        "Origin", WIDGET_ORIGIN, "Access-Control-Request-Method", "POST",
        "Access-Control-Request-Headers", "x-api-key, content-type");
    assertThat(preflight.status()).isEqualTo(204);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers")).hasValueSatisfying(
        allowed -> assertThat(allowed).contains("X-API-Key", "Content-Type"));

    Credentialed.Reply started = send("POST", "/v1/session/start", "{}", "Origin", WIDGET_ORIGIN);
    assertThat(started.status()).as(started.body()).isEqualTo(200);
    assertThat(started.headers().firstValue("Access-Control-Allow-Origin")).hasValue(WIDGET_ORIGIN);
    String sessionId = started.json().path("session_id").asText();
    Credentialed.Reply answered = send("POST", "/v1/chat/message", message(sessionId, "Hello").toString(),
        "Origin", WIDGET_ORIGIN);
    assertThat(answered.headers().firstValue("Access-Control-Allow-Origin")).hasValue(WIDGET_ORIGIN);
    Credentialed.Reply ended = send("POST", "/v1/session/" + sessionId + "/end", null, "Origin", WIDGET_ORIGIN);
    assertThat(ended.headers().firstValue("Access-Control-Allow-Origin")).hasValue(WIDGET_ORIGIN);

    Credentialed.Reply elsewhere = send("POST", "/v1/session/start", "{}", "Origin", "https://attacker.example");
    assertThat(elsewhere.status()).isEqualTo(403);
    Credentialed.assertErrorBody(elsewhere, "ORIGIN_NOT_ALLOWED", "an origin the tenant does not allow");
  }

  private static void assertError(Credentialed.Reply reply, int status, String code) {
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    Credentialed.assertErrorBody(reply, code, reply.body());
  }

  /** {@code POST /v1/knowledge/ingest} with the file and its {@code document_type}, as the contract's form has them. */
  private static Api.Response upload(String fileName, String content, String documentType) throws Exception {
    String boundary = "b" + UUID.randomUUID();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName
        + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content + "\r\n--" + boundary
        + "\r\nContent-Disposition: form-data; name=\"document_type\"\r\n\r\n" + documentType + "\r\n--" + boundary
        + "--\r\n").getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/v1/knowledge/ingest"))
        .timeout(WAIT)
        .header("X-API-Key", key())
        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(), HttpResponse.BodyHandlers.ofString());
    return new Api.Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), response.body());
  }
}
