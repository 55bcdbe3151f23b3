package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Edge contract over HTTP on the real node, as its client reads it: {@code ready} first, then
 * {@code chat.delta} with strictly increasing {@code seq}, then {@code chat.done}; every frame with the
 * trace id the caller gave; {@code request_id} and {@code idempotency_key} deduplicate; a client that
 * disconnects cancels the model call at once; embedding jobs report real progress; each session has
 * its own rate limit; refusals are one {@code error} frame with a lower-case code.
 */
class EdgeIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int SESSION_RATE = 6;

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.edge.session-requests-per-minute", SESSION_RATE));

  private static String base() {
    return app.colloquy().baseUrl();
  }

  private static String bearer() {
    return "Bearer " + app.api().apiKey();
  }

  private static ObjectNode chat(String sessionId, String content) {
    return Api.JSON.createObjectNode().put("session_id", sessionId).put("content", content);
  }

  private static SseClient post(String path, ObjectNode body, String... headers) throws Exception {
    String[] all = new String[headers.length + 2];
    all[0] = "Authorization";
    all[1] = bearer();
    System.arraycopy(headers, 0, all, 2, headers.length);
    return SeedStreams.post(base(), path, body.toString(), all);
  }

  private static List<SseEvent> chatToEnd(ObjectNode body, String... headers) throws Exception {
    try (SseClient stream = post("/functions/v1/chat", body, headers)) {
      return stream.readToEnd(WAIT);
    }
  }

  @Test
  void aTurnStreamsReadyThenNumberedDeltasThenDoneWithTheCallersTraceId() throws Exception {
    String sessionId = app.api().openSession();
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    List<SseEvent> events;
    try (SseClient stream = post("/functions/v1/chat", chat(sessionId, "Hello").put("request_id", "req-1"),
        "traceparent", traceparent)) {
      assertThat(stream.response().headers().firstValue("Cache-Control")).hasValue("no-cache");
      events = stream.readToEnd(WAIT);
    }

    String traceId = "4bf92f35-77b3-4da6-a3ce-929d0e0e4736";
    assertThat(events.getFirst().event()).isEqualTo("ready");
    assertThat(events.getFirst().json().toString()).isEqualTo("{\"trace_id\":\"" + traceId + "\"}");
    List<SseEvent> deltas = events.subList(1, events.size() - 1);
    assertThat(deltas).extracting(SseEvent::event).containsOnly("chat.delta");
    assertThat(deltas).extracting(e -> e.json().path("seq").asLong())
        .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, deltas.size()).boxed().toList());
    assertThat(deltas.getFirst().json().properties()).extracting(Map.Entry::getKey)
        .containsExactly("request_id", "seq", "delta", "trace_id");
    assertThat(deltas.stream().map(e -> e.text("delta")).collect(Collectors.joining()))
        .isEqualTo(MockLlmSettings.defaults().text(MockLlmSettings.defaults().tokens()));
    SseEvent done = events.getLast();
    assertThat(done.event()).isEqualTo("chat.done");
    assertThat(done.json().properties()).extracting(Map.Entry::getKey)
        .containsExactly("request_id", "message_id", "usage", "trace_id", "total_ms");
    assertThat(done.text("request_id")).isEqualTo("req-1");
    assertThat(done.json().path("usage").path("completion_tokens").asLong())
        .isEqualTo(MockLlmSettings.defaults().tokens() + StreamedTurnIntegrationTest.ROUTING_TOKENS);
    assertThat(done.json().path("usage").path("prompt_tokens").asLong()).isPositive();
    assertThat(events.subList(1, events.size())).allSatisfy(e -> assertThat(e.text("trace_id")).isEqualTo(traceId));
    JsonNode session = app.api().session(sessionId);
    assertThat(session.path("messages").get(1).path("message_id").asText()).isEqualTo(done.text("message_id"));
  }

  @Test
  void theTraceIdComesFromXRequestIdOrXTraceIdOrIsNewAndReachesTheLogs() throws Exception {
    String sessionId = app.api().openSession();
    String requestTrace = UUID.randomUUID().toString();
    String headerTrace = "0af7651916cd43dd8448eb211c80319c";

    List<SseEvent> byRequestId;
    try (CapturedLogs logs = CapturedLogs.capture()) {
      byRequestId = chatToEnd(chat(sessionId, "First"), "X-Request-Id", requestTrace);
      List<ILoggingEvent> lines = logs.events().stream()
          .filter(line -> requestTrace.equals(line.getMDCPropertyMap().get("trace_id"))).toList();
      assertThat(lines).extracting(ILoggingEvent::getFormattedMessage)
          .anyMatch(line -> line.startsWith("Turn started"))
          .anyMatch(line -> line.startsWith("Edge chat stream of request"));
    }
    List<SseEvent> byTraceId = chatToEnd(chat(sessionId, "Second"), "X-Trace-Id", headerTrace);
    List<SseEvent> fresh = chatToEnd(chat(sessionId, "Third"), "X-Request-Id", "not-a-uuid");

    assertThat(byRequestId.getLast().text("trace_id")).isEqualTo(requestTrace);
    assertThat(byTraceId.getLast().text("trace_id")).isEqualTo("0af76519-16cd-43dd-8448-eb211c80319c");
    assertThat(UUID.fromString(fresh.getLast().text("trace_id")).toString()).isEqualTo(fresh.getLast().text("trace_id"));
  }

  @Test
  void aRepeatedRequestIdOrIdempotencyKeyJoinsTheSameTurnAndLastEventIdResumesIt() throws Exception {
    String sessionId = app.api().openSession();
    List<SseEvent> first = chatToEnd(chat(sessionId, "Once").put("request_id", "r-1").put("idempotency_key", "k-1"));
    long requests = app.mock().stats().requests();

    List<SseEvent> byRequestId = chatToEnd(chat(sessionId, "Once").put("request_id", "r-1"));
    List<SseEvent> byKey = chatToEnd(chat(sessionId, "Once").put("request_id", "r-2").put("idempotency_key", "k-1"));
    List<SseEvent> resumed = chatToEnd(chat(sessionId, "Once").put("request_id", "r-1"), "Last-Event-ID", "3");

    assertThat(app.mock().stats().requests()).as("no second model call").isEqualTo(requests);
    String messageId = first.getLast().text("message_id");
    assertThat(byRequestId.getLast().text("message_id")).isEqualTo(messageId);
    assertThat(byKey.getLast().text("message_id")).isEqualTo(messageId);
    assertThat(byRequestId.stream().map(SseEvent::data).toList()).isEqualTo(first.stream().map(SseEvent::data).toList());
    assertThat(resumed.getFirst().event()).isEqualTo("ready");
    assertThat(resumed.get(1).json().path("seq").asLong()).isEqualTo(4);
    assertThat(resumed.subList(1, resumed.size())).extracting(SseEvent::id)
        .isEqualTo(first.subList(4, first.size()).stream().map(SseEvent::id).toList());
    assertThat(app.api().session(sessionId).path("messages")).hasSize(2);
  }

  @Test
  void aClientThatDisconnectsCancelsTheModelCallAtOnce() throws Exception {
    String sessionId = app.api().openSession();
    MockLlmSettings normal = app.mock().settings();
    app.mock().reconfigure(TestColloquy.slowMock());
    long cancelledBefore = app.mock().stats().streamsCancelled();
    try {
      try (SseClient stream = post("/functions/v1/chat", chat(sessionId, "Talk for a long time"))) {
        assertThat(stream.next(WAIT).event()).isEqualTo("ready");
        assertThat(stream.next(WAIT).event()).isEqualTo("chat.delta");
      }
      long closedAt = System.nanoTime();
      app.mock().stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - closedAt))
          .as("well within the canonical disconnect grace of 30 s").isLessThan(Duration.ofSeconds(5));
    } finally {
      app.mock().reconfigure(normal);
    }
    JsonNode session = awaitNoRunningTurn(sessionId);
    assertThat(session.path("messages")).hasSize(1);
  }

  @Test
  void badRequestsAreOneErrorFrameWithTheContractsLowerCaseCode() throws Exception {
    String sessionId = app.api().openSession();
    String otherTenant = new Api(base(), new dev.colloquy.persistence.tenant.TenantStore(
        app.colloquy().database().dataSource()).create("edge-other").key().apiKey()).openSession();

    assertRefused(chat(sessionId, "x").without("content"), 400, "bad_request", "content");
    assertRefused(chat(sessionId, "x").put("content", 42), 400, "bad_request", "content");
    assertRefused(chat(sessionId, "  "), 400, "bad_request", "empty");
    assertRefused(chat("session-1", "Hi"), 400, "bad_request", "session_id");
    assertRefused(chat(sessionId, "Hi").put("model", "gpt-99"), 422, "unknown_model", "gpt-99");
    assertRefused(chat(otherTenant, "Hi"), 404, "session_not_found", "not found");
    assertRefused(chat(UUID.randomUUID().toString(), "Hi"), 404, "session_not_found", "not found");
    Credentialed.Reply malformed = Credentialed.send(base(), "POST", "/functions/v1/chat", "{", "Authorization", bearer());
    assertThat(malformed.status()).isEqualTo(400);
    assertThat(errorFrame(malformed).path("code").asText()).isEqualTo("bad_request");

    String closed = app.api().openSession();
    assertThat(app.api().post("/v1/sessions/" + closed + "/close", "").status()).isEqualTo(200);
    assertRefused(chat(closed, "Hi"), 409, "session_closed", "closed");

    assertThat(app.api().session(sessionId).path("messages")).isEmpty();
  }

  /**
   * What the layers before the contract's routes refuse (the credential, an unknown path) reaches its
   * client as the same single error frame: the contract's client reads every answer as a stream.
   */
  @Test
  void refusalsMadeBeforeTheContractsRoutesAreItsErrorFrameToo() throws Exception {
    String body = chat(app.api().openSession(), "Hi").toString();
    Credentialed.Reply anonymous = Credentialed.send(base(), "POST", "/functions/v1/chat", body);
    Credentialed.Reply badKey = Credentialed.send(base(), "POST", "/functions/v1/embed", body,
        "Authorization", "Bearer ck_notakey_notasecret");
    Credentialed.Reply unknown = Credentialed.send(base(), "POST", "/functions/v1/summarize", body,
        "Authorization", bearer());
    for (Credentialed.Reply reply : List.of(anonymous, badKey, unknown)) {
      assertThat(reply.headers().firstValue("Content-Type")).as(reply.body()).hasValueSatisfying(
          type -> assertThat(type).startsWith("text/event-stream"));
      assertThat(UUID.fromString(errorFrame(reply).path("trace_id").asText())).isNotNull();
    }
    assertThat(anonymous.status()).isEqualTo(401);
    assertThat(errorFrame(anonymous).path("code").asText()).isEqualTo("unauthenticated");
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isPresent();
    assertThat(badKey.status()).isEqualTo(401);
    assertThat(errorFrame(badKey).path("code").asText()).isEqualTo("unauthenticated");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(errorFrame(unknown).path("code").asText()).isEqualTo("not_found");
  }

  @Test
  void aTurnInProgressIsRefusedAndEachSessionHasItsOwnRateLimit() throws Exception {
    String busy = app.api().openSession();
    MockLlmSettings normal = app.mock().settings();
    app.mock().reconfigure(TestColloquy.slowMock());
    try (SseClient running = post("/functions/v1/chat", chat(busy, "Talk for a long time"))) {
      assertThat(running.next(WAIT).event()).isEqualTo("ready");
      assertRefused(chat(busy, "And another thing"), 409, "turn_in_progress", "running");
    } finally {
      app.mock().reconfigure(normal);
    }

    String limited = app.api().openSession();
    String other = app.api().openSession();
    for (int i = 0; i < SESSION_RATE; i++) {
      assertThat(chatToEnd(chat(limited, "Turn " + i)).getLast().event()).isEqualTo("chat.done");
    }
    Credentialed.Reply refused = assertRefused(chat(limited, "One too many"), 429, "rate_limited", "too fast");
    assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
        seconds -> assertThat(Long.parseLong(seconds)).isPositive());
    assertThat(chatToEnd(chat(other, "Another session")).getLast().event()).as("another session is not limited")
        .isEqualTo("chat.done");
  }

  @Test
  void anEmbeddingJobIngestsEachItemReportsRealProgressAndMakesItSearchable() throws Exception {
    String sessionId = app.api().openSession();
    ObjectNode body = Api.JSON.createObjectNode().put("session_id", sessionId).put("job_id", "job-7");
    body.putArray("items")
        .add(Api.JSON.createObjectNode().put("id", "doc:lighthouse").put("text", "The lighthouse keeper is Ada Marsh."))
        .add(Api.JSON.createObjectNode().put("id", "doc:harbour").put("text", "The harbour closes at dusk in winter."))
        .add(Api.JSON.createObjectNode().put("id", "doc:empty-ish").put("text", "\u0000"));
    List<SseEvent> events;
    try (SseClient stream = post("/functions/v1/embed", body)) {
      events = stream.readToEnd(WAIT);
    }

    assertThat(events).extracting(SseEvent::event)
        .containsExactly("ready", "embed.status", "embed.status", "embed.status", "embed.done");
    assertThat(events.getFirst().json().path("total").asInt()).isEqualTo(3);
    List<SseEvent> progress = events.subList(1, 4);
    assertThat(progress).extracting(e -> e.json().path("processed").asInt()).containsExactly(1, 2, 3);
    assertThat(progress.getLast().json().path("progress").asDouble()).isEqualTo(1.0);
    assertThat(progress).extracting(e -> e.text("item_id"))
        .containsExactlyInAnyOrder("doc:lighthouse", "doc:harbour", "doc:empty-ish");
    JsonNode done = events.getLast().json();
    assertThat(done.path("job_id").asText()).isEqualTo("job-7");
    assertThat(done.path("embedded").asInt()).isEqualTo(2);
    assertThat(done.path("failed").asInt()).isEqualTo(1);
    assertThat(done.path("chunks").asInt()).isGreaterThanOrEqualTo(2);
    assertThat(done.path("items").valueStream().filter(i -> i.path("id").asText().equals("doc:empty-ish")).findFirst()
        .orElseThrow().path("error_code").asText()).isNotBlank();
    assertThat(app.api().get("/v1/knowledge/list").json().path("documents"))
        .extracting(d -> d.path("filename").asText()).contains("doc:lighthouse.txt", "doc:harbour.txt");

    List<SseEvent> answer;
    try (SseClient stream = post("/functions/v1/chat", chat(sessionId, "Who is the lighthouse keeper?"))) {
      answer = stream.readToEnd(WAIT);
    }
    assertThat(answer.getLast().event()).isEqualTo("chat.done");
    JsonNode turn = app.api().session(sessionId).path("messages").get(1);
    assertThat(turn.path("citations")).extracting(c -> c.path("source").asText()).contains("doc:lighthouse.txt");
  }

  @Test
  void badEmbeddingJobsAreRefusedBeforeAnyWork() throws Exception {
    String sessionId = app.api().openSession();
    long documents = app.api().get("/v1/knowledge/list").json().path("documents").size();
    ObjectNode noItems = Api.JSON.createObjectNode().put("session_id", sessionId);
    ObjectNode unknownModel = noItems.deepCopy().put("model", "text-embedding-004");
    unknownModel.putArray("items").add(Api.JSON.createObjectNode().put("id", "a").put("text", "x"));
    ObjectNode twice = noItems.deepCopy();
    twice.putArray("items").add(Api.JSON.createObjectNode().put("id", "a").put("text", "x"))
        .add(Api.JSON.createObjectNode().put("id", "a").put("text", "y"));

    assertRefused("/functions/v1/embed", noItems, 400, "bad_request", "items");
    assertRefused("/functions/v1/embed", unknownModel, 422, "unknown_model", "text-embedding-004");
    assertRefused("/functions/v1/embed", twice, 400, "bad_request", "twice");
    assertRefused("/functions/v1/embed", unknownModel.deepCopy().put("session_id", UUID.randomUUID().toString())
        .without("model"), 404, "session_not_found", "not found");
    assertThat(app.api().get("/v1/knowledge/list").json().path("documents")).hasSize((int) documents);
  }

  private static Credentialed.Reply assertRefused(ObjectNode body, int status, String code, String messagePart)
      throws Exception {
    return assertRefused("/functions/v1/chat", body, status, code, messagePart);
  }

  private static Credentialed.Reply assertRefused(String path, ObjectNode body, int status, String code, String messagePart)
      throws Exception {
    Credentialed.Reply reply = Credentialed.send(base(), "POST", path, body.toString(), "Authorization", bearer());
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    assertThat(reply.headers().firstValue("Content-Type")).hasValueSatisfying(
        type -> assertThat(type).startsWith("text/event-stream"));
    JsonNode error = errorFrame(reply);
    assertThat(error.path("code").asText()).as(reply.body()).isEqualTo(code);
    assertThat(error.path("message").asText()).as(reply.body()).containsIgnoringCase(messagePart);
    assertThat(UUID.fromString(error.path("trace_id").asText())).isNotNull();
    return reply;
  }

  /** The body of a refusal: exactly one {@code event: error} frame. */
  private static JsonNode errorFrame(Credentialed.Reply reply) throws Exception {
    List<String> lines = reply.body().lines().toList();
    assertThat(lines).as(reply.body()).hasSize(3);
    assertThat(lines.get(0)).isEqualTo("event: error");
    assertThat(lines.get(1)).startsWith("data: ");
    assertThat(lines.get(2)).isEmpty();
    return Api.JSON.readTree(lines.get(1).substring("data: ".length()));
  }

  private static JsonNode awaitNoRunningTurn(String sessionId) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    JsonNode session = app.api().session(sessionId);
    while (!session.path("running_turn_id").isNull()) {
      assertThat(System.nanoTime()).as("the turn ended: " + session).isLessThan(deadline);
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      session = app.api().session(sessionId);
    }
    return session;
  }
}
