package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Colloquy's HTTP API as a client sees it, over real HTTP/1.1. */
final class Api {

  static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  record Response(int status, String contentType, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (JsonProcessingException e) {
        throw new AssertionError("not JSON (" + status + "): " + body, e);
      }
    }

    /** The body with an error's trace id taken out: two answers to two requests compare equal on the rest. */
    String withoutTraceId() {
      if (!contentType.contains("json")) {
        return body;
      }
      JsonNode parsed = json();
      if (parsed.path("error") instanceof ObjectNode error) {
        error.remove("trace_id");
      }
      return parsed.toString();
    }
  }

  private final String baseUrl;
  private final String apiKey;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  /** Without a credential: only the open routes (health, readiness, metrics, the OpenAPI document) answer. */
  Api(String baseUrl) {
    this(baseUrl, null);
  }

  /** Every request carries {@code Authorization: Bearer apiKey}. */
  Api(String baseUrl, String apiKey) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
  }

  String apiKey() {
    return apiKey;
  }

  /** The same server with another credential. */
  Api withKey(String otherKey) {
    return new Api(baseUrl, otherKey);
  }

  private HttpRequest.Builder authorized(HttpRequest.Builder request) {
    return apiKey == null ? request : request.header("Authorization", "Bearer " + apiKey);
  }

  Response get(String path) throws Exception {
    return send("GET", path, null);
  }

  Response post(String path, String body, String... headers) throws Exception {
    return send("POST", path, body, headers);
  }

  Response send(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(TIMEOUT)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null && !java.util.Arrays.asList(headers).contains("Content-Type")) {
      request.header("Content-Type", "application/json");
    }
    if (!java.util.Arrays.asList(headers).contains("Authorization") && !java.util.Arrays.asList(headers).contains("X-API-Key")) {
      authorized(request);
    }
    if (headers.length > 0) {
      request.headers(headers);
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), response.body());
  }

  /**
   * {@code POST /v1/knowledge/ingest} with the file as multipart form data. Like curl with a large body,
   * it sends {@code Expect: 100-continue} and the body only once the server asks for it: an upload the
   * server refuses at once (too large, too many at once) gets its answer, where a client still writing
   * when the server answers and closes can lose it. The request may take a second more per 256 KiB
   * than any other: a burst of 52 uploads of 20 MiB is a gigabyte over loopback, which a loaded
   * machine does not move in 30 seconds.
   */
  Response upload(String fileName, byte[] content) throws Exception {
    String boundary = "b" + java.util.UUID.randomUUID();
    java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
    body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName
        + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    body.write(content);
    body.write(("\r\n--" + boundary + "--\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    HttpResponse<String> response = http.send(authorized(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/knowledge/ingest")))
        .timeout(TIMEOUT.plusSeconds(content.length / (256 * 1024)))
        .expectContinue(true)
        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build(), HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), response.body());
  }

  /** Uploads a document and polls its status (the API's own way of waiting) until it has settled. */
  JsonNode ingest(String fileName, byte[] content) throws Exception {
    Response accepted = upload(fileName, content);
    assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
    return settled(accepted.json().path("document_id").asText());
  }

  JsonNode settled(String documentId) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      JsonNode status = get("/v1/knowledge/" + documentId + "/status").json();
      String state = status.path("status").asText();
      if (state.equals("ready") || state.equals("failed")) {
        return status;
      }
      assertThat(System.nanoTime()).as("document " + documentId + " still " + state).isLessThan(deadline);
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  /** Opens a session and returns its id. */
  String openSession() throws Exception {
    Response created = post("/v1/sessions", "{}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json().path("session_id").asText();
  }

  JsonNode session(String sessionId) throws Exception {
    Response session = get("/v1/sessions/" + sessionId);
    assertThat(session.status()).as(session.body()).isEqualTo(200);
    return session.json();
  }

  /** {@code POST …/turns} with {@code Accept: text/event-stream}. */
  SseClient streamTurn(String sessionId, String body) throws Exception {
    return SseClient.open(http, authorized(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/sessions/" + sessionId + "/turns")))
        .timeout(TIMEOUT)
        .header("Accept", "text/event-stream")
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build());
  }

  /** {@code GET …/turns/{turnId}/events}, resuming after {@code lastEventId} when given. */
  SseClient joinTurn(String sessionId, String turnId, Long lastEventId) throws Exception {
    return SseClient.open(http, joinRequest(sessionId, turnId, lastEventId));
  }

  /** The same join, answered whatever its status, its body not read yet. */
  HttpResponse<InputStream> joinTurnResponse(String sessionId, String turnId, Long lastEventId) throws Exception {
    return http.sendAsync(joinRequest(sessionId, turnId, lastEventId), HttpResponse.BodyHandlers.ofInputStream())
        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }

  private HttpRequest joinRequest(String sessionId, String turnId, Long lastEventId) {
    HttpRequest.Builder request =
        authorized(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/sessions/" + sessionId + "/turns/" + turnId + "/events")))
            .timeout(TIMEOUT)
            .header("Accept", "text/event-stream")
            .GET();
    if (lastEventId != null) {
      request.header("Last-Event-ID", Long.toString(lastEventId));
    }
    return request.build();
  }

  static String turn(String message) {
    return JSON.createObjectNode().put("message", message).toString();
  }

  static String turn(String message, List<String> models) {
    ObjectNode body = JSON.createObjectNode().put("message", message);
    models.forEach(body.putArray("models")::add);
    return body.toString();
  }

  static String turnWithKey(String message, String idempotencyKey) {
    return JSON.createObjectNode().put("message", message).put("idempotency_key", idempotencyKey).toString();
  }
}
