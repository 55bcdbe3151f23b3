package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /v1/chat/completions} and {@code GET /v1/models} over real HTTP against a node with
 * several providers: completions with and without a stream, sessions opened from a request's messages
 * and continued by {@code X-Session-Id}, and every refusal in OpenAI's error shape.
 */
class OpenAiDialectIntegrationTest {

  @RegisterExtension
  static final MockProviders app = MockProviders.start();

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @AfterAll
  static void closeClient() {
    HTTP.close();
  }

  private static String body(String model, boolean stream, String... rolesAndContents) {
    ObjectNode body = Api.JSON.createObjectNode().put("model", model);
    if (stream) {
      body.put("stream", true).putObject("stream_options").put("include_usage", true);
    }
    ArrayNode messages = body.putArray("messages");
    for (int i = 0; i < rolesAndContents.length; i += 2) {
      messages.addObject().put("role", rolesAndContents[i]).put("content", rolesAndContents[i + 1]);
    }
    return body.toString();
  }

  private static Credentialed.Reply complete(String body, String... headers) throws Exception {
    List<String> all = new ArrayList<>(List.of("Authorization", "Bearer " + app.api().apiKey()));
    all.addAll(List.of(headers));
    return Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions", body, all.toArray(String[]::new));
  }

  private static SseClient stream(String body, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.colloquy().baseUrl() + "/v1/chat/completions"))
        .header("Authorization", "Bearer " + app.api().apiKey()).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return SseClient.open(HTTP, request.build());
  }

  private static String expectedText() {
    return app.alpha().settings().text(app.alpha().settings().tokens());
  }

  @Test
  void aCompletionOpensASessionFromTheRequestsMessagesAndNamesItInXSessionId() throws Exception {
    Credentialed.Reply reply = complete(body("alpha/mock", false, "system", "You are terse.", "user", "My name is Ada.",
        "assistant", "Hello, Ada.", "user", "What is my name?"));

    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    String sessionId = reply.headers().firstValue("X-Session-Id").orElseThrow();
    assertThat(UUID.fromString(sessionId)).hasToString(sessionId);
    assertThat(reply.headers().firstValue("x-request-id")).isPresent();
    JsonNode completion = reply.json();
    assertThat(completion.path("object").asText()).isEqualTo("chat.completion");
    assertThat(completion.path("id").asText()).startsWith("chatcmpl-");
    assertThat(completion.path("model").asText()).isEqualTo("alpha/mock");
    JsonNode choice = completion.path("choices").get(0);
    assertThat(choice.path("message").path("role").asText()).isEqualTo("assistant");
    assertThat(choice.path("message").path("content").asText()).isEqualTo(expectedText());
    assertThat(choice.path("finish_reason").asText()).isEqualTo("stop");
    JsonNode usage = completion.path("usage");
    assertThat(usage.path("completion_tokens").asInt()).isEqualTo(app.alpha().settings().tokens());
    assertThat(usage.path("total_tokens").asInt())
        .isEqualTo(usage.path("prompt_tokens").asInt() + usage.path("completion_tokens").asInt());
    JsonNode extension = completion.path("colloquy");
    assertThat(extension.path("session_id").asText()).isEqualTo(sessionId);
    assertThat(extension.path("provider").asText()).isEqualTo("alpha");
    assertThat(extension.path("citations").isArray()).isTrue();

    JsonNode asked = app.alpha().stats().chatRequests().getLast();
    List<String> contents = asked.path("messages").findValuesAsText("content");
    // A client's system messages become the session's persona, which the model gets as data, not as instructions.
    assertThat(contents.getFirst()).doesNotContain("You are terse.");
    assertThat(contents).containsSubsequence("My name is Ada.", "Hello, Ada.", "What is my name?")
        .endsWith("What is my name?");
    assertThat(contents.get(contents.size() - 2)).contains("<session_persona>\nYou are terse.\n</session_persona>");
    assertThat(app.api().session(sessionId).path("persona").asText()).isEqualTo("You are terse.");
  }

  @Test
  void aStreamedCompletionSendsChunksTheUsageAndDone() throws Exception {
    List<SseEvent> events;
    String sessionId;
    try (SseClient stream = stream(body("mock", true, "user", "Stream it"))) {
      events = stream.readToEnd(Duration.ofSeconds(30));
      sessionId = stream.response().headers().firstValue("X-Session-Id").orElseThrow();
    }

    assertThat(events).allSatisfy(event -> assertThat(event.event()).isEqualTo("message"));
    assertThat(events.getLast().data()).isEqualTo("[DONE]");
    List<JsonNode> chunks = events.subList(0, events.size() - 1).stream().map(SseEvent::json).toList();
    assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.path("object").asText()).isEqualTo("chat.completion.chunk"));
    assertThat(chunks).extracting(chunk -> chunk.path("id").asText()).containsOnly(chunks.getFirst().path("id").asText());
    JsonNode first = chunks.getFirst();
    assertThat(first.path("choices").get(0).path("delta").path("role").asText()).isEqualTo("assistant");
    assertThat(first.path("colloquy").path("session_id").asText()).isEqualTo(sessionId);
    assertThat(first.path("colloquy").path("citations").isArray()).isTrue();
    StringBuilder text = new StringBuilder();
    chunks.forEach(chunk -> chunk.path("choices").forEach(choice -> text.append(choice.path("delta").path("content").asText(""))));
    assertThat(text).hasToString(expectedText());
    JsonNode finish = chunks.get(chunks.size() - 2);
    assertThat(finish.path("choices").get(0).path("finish_reason").asText()).isEqualTo("stop");
    JsonNode usage = chunks.getLast();
    assertThat(usage.path("choices")).isEmpty();
    assertThat(usage.path("usage").path("completion_tokens").asInt()).isEqualTo(app.alpha().settings().tokens());
  }

  @Test
  void xSessionIdContinuesASessionWhoseOwnHistoryIsTheContext() throws Exception {
    Credentialed.Reply first = complete(body("mock", false, "user", "Remember: the code is 7."));
    String sessionId = first.headers().firstValue("X-Session-Id").orElseThrow();

    Credentialed.Reply second = complete(body("beta/mock", false, "user", "ignored, the session has its history",
        "user", "What is the code?"), "X-Session-Id", sessionId);

    assertThat(second.status()).as(second.body()).isEqualTo(200);
    assertThat(second.headers().firstValue("X-Session-Id")).contains(sessionId);
    assertThat(second.json().path("colloquy").path("provider").asText()).isEqualTo("beta");
    JsonNode asked = app.beta().stats().chatRequests().getLast();
    assertThat(asked.path("messages").findValuesAsText("content"))
        .endsWith("Remember: the code is 7.", expectedText(), "What is the code?")
        .doesNotContain("ignored, the session has its history");
    assertThat(app.api().session(sessionId).path("messages")).hasSize(4);
  }

  @Test
  void theModelListNamesEveryProvidersModels() throws Exception {
    Api.Response models = app.api().get("/v1/models");

    assertThat(models.status()).as(models.body()).isEqualTo(200);
    assertThat(models.json().path("object").asText()).isEqualTo("list");
    assertThat(models.json().path("data").findValuesAsText("id"))
        .containsExactly("alpha/mock", "beta/mock", "beta/flaky", "gamma/unreachable", "slow/mock", "offline/offline");
    assertThat(models.json().path("data").get(1).path("owned_by").asText()).isEqualTo("beta");
    assertThat(models.json().path("data").get(1).path("object").asText()).isEqualTo("model");
  }

  @Test
  void badRequestsAreRefusedInOpenAisShapeNamingTheParameter() throws Exception {
    assertOpenAiError(complete("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"), 400,
        "invalid_request_error", "missing_required_parameter", "model");
    assertOpenAiError(complete("{\"model\": \"mock\"}"), 400, "invalid_request_error", "missing_required_parameter", "messages");
    assertOpenAiError(complete("{\"model\": \"mock\", \"messages\": \"hi\"}"), 400, "invalid_request_error", "invalid_type", "messages");
    assertOpenAiError(complete("{\"model\": 7, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"), 400,
        "invalid_request_error", "invalid_type", "model");
    assertOpenAiError(complete("{\"model\": \"mock\", \"messages\": [{\"role\": \"user\", \"content\": 42}]}"), 400,
        "invalid_request_error", "invalid_type", "messages[0].content");
    assertOpenAiError(complete(body("mock", false, "user", "hi", "assistant", "hello")), 400,
        "invalid_request_error", "invalid_value", "messages");
    assertOpenAiError(complete("{\"model\": \"mock\", \"stream\": \"yes\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"),
        400, "invalid_request_error", "invalid_type", "stream");
    assertOpenAiError(complete("{\"model\": \"mock\", \"n\": 2, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"),
        400, "invalid_request_error", "unsupported_value", "n");
    assertOpenAiError(complete("{not json"), 400, "invalid_request_error", "invalid_json", null);
  }

  @Test
  void aConversationOrSystemPromptBeyondWhatASessionKeepsIsRefused() throws Exception {
    String turn = "x".repeat(30_000);
    List<String> roles = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      roles.addAll(List.of("user", turn, "assistant", turn));
    }
    roles.addAll(List.of("user", "And now?"));
    Credentialed.Reply tooLong = complete(body("mock", false, roles.toArray(String[]::new)));
    assertOpenAiError(tooLong, 400, "invalid_request_error", "context_length_exceeded", "messages");
    assertThat(tooLong.body()).contains("300000 bytes", "131072");

    Credentialed.Reply tooManyInstructions = complete(body("mock", false, "system", "y".repeat(5_000),
        "developer", "z".repeat(5_000), "user", "hi"));
    assertOpenAiError(tooManyInstructions, 400, "invalid_request_error", "context_length_exceeded", "messages");
    assertThat(tooManyInstructions.body()).contains("10000 characters", "8000");

    Credentialed.Reply fits = complete(body("mock", false, "system", "y".repeat(8_000), "user", turn, "assistant", turn,
        "user", "And now?"));
    assertThat(fits.status()).as(fits.body()).isEqualTo(200);
  }

  @Test
  void anUnknownModelOrProviderIsNotFound() throws Exception {
    for (String model : List.of("gpt-5", "delta/mock", "beta/gpt-5")) {
      Credentialed.Reply refused = complete(body(model, false, "user", "hi"));
      assertOpenAiError(refused, 404, "invalid_request_error", "model_not_found", "model");
      assertThat(refused.json().path("error").path("message").asText()).contains(model);
    }
  }

  @Test
  void aForeignOrUnknownSessionIsNotFoundAlike() throws Exception {
    String otherKey = LimitedTenants.keyOfNewTenant(app.colloquy(), "{}");
    String foreign = LimitedTenants.openSession(app.colloquy(), otherKey);

    Credentialed.Reply theirs = complete(body("mock", false, "user", "hi"), "X-Session-Id", foreign);
    Credentialed.Reply missing = complete(body("mock", false, "user", "hi"), "X-Session-Id", UUID.randomUUID().toString());
    Credentialed.Reply notAnId = complete(body("mock", false, "user", "hi"), "X-Session-Id", "not-a-session");

    assertOpenAiError(theirs, 404, "invalid_request_error", "session_not_found", null);
    assertThat(theirs.body()).isEqualTo(missing.body()).isEqualTo(notAnId.body());
  }

  @Test
  void aJwtActsForItsUserWhoseSessionNoOtherUserCanContinue() throws Exception {
    String ada = "Bearer " + MockProviders.token("ada");
    String bob = "Bearer " + MockProviders.token("bob");
    Credentialed.Reply opened = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions",
        body("mock", false, "user", "Ada's question"), "Authorization", ada);
    assertThat(opened.status()).as(opened.body()).isEqualTo(200);
    String sessionId = opened.headers().firstValue("X-Session-Id").orElseThrow();

    Credentialed.Reply bobs = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions",
        body("mock", false, "user", "Bob's question"), "Authorization", bob, "X-Session-Id", sessionId);
    Credentialed.Reply adas = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions",
        body("mock", false, "user", "Ada again"), "Authorization", ada, "X-Session-Id", sessionId);

    assertOpenAiError(bobs, 404, "invalid_request_error", "session_not_found", null);
    assertThat(adas.status()).as(adas.body()).isEqualTo(200);
    assertThat(adas.headers().firstValue("X-Session-Id")).contains(sessionId);
  }

  @Test
  void aClosedSessionAndATurnInProgressAreConflicts() throws Exception {
    String closed = complete(body("mock", false, "user", "hi")).headers().firstValue("X-Session-Id").orElseThrow();
    assertThat(app.api().post("/v1/sessions/" + closed + "/close", "{}").status()).isEqualTo(200);
    assertOpenAiError(complete(body("mock", false, "user", "again"), "X-Session-Id", closed), 409,
        "invalid_request_error", "session_closed", null);

    try (SseClient running = stream(body("slow/mock", true, "user", "take your time"))) {
      String busy = running.response().headers().firstValue("X-Session-Id").orElseThrow();
      running.next(Duration.ofSeconds(10));
      assertOpenAiError(complete(body("mock", false, "user", "and now?"), "X-Session-Id", busy), 409,
          "invalid_request_error", "turn_in_progress", null);
    }
  }

  @Test
  void refusalsBeforeTheDialectAreInItsShapeToo() throws Exception {
    Credentialed.Reply anonymous = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions",
        body("mock", false, "user", "hi"));
    assertOpenAiError(anonymous, 401, "authentication_error", "invalid_api_key", null);
    assertThat(anonymous.headers().allValues("WWW-Authenticate")).containsExactly("Bearer");
    assertOpenAiError(Credentialed.get(app.colloquy().baseUrl(), "/v1/models", "Authorization", "Bearer ck_nope_nope"), 401,
        "authentication_error", "invalid_api_key", null);
    var plainText = HTTP.send(HttpRequest.newBuilder(URI.create(app.colloquy().baseUrl() + "/v1/chat/completions"))
        .header("Authorization", "Bearer " + app.api().apiKey()).header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(body("mock", false, "user", "hi"))).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertOpenAiError(new Credentialed.Reply(plainText.statusCode(), plainText.headers(), plainText.body()), 415,
        "invalid_request_error", "unsupported_media_type", null);
    assertOpenAiError(Credentialed.get(app.colloquy().baseUrl(), "/v1/chat/completions", "Authorization",
        "Bearer " + app.api().apiKey()), 405, "invalid_request_error", "method_not_allowed", null);
  }

  @Test
  void aCompletionCountsAsATurnOfTheTenantsRateLimit() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"turns_per_minute\": 1}");
    String body = body("mock", false, "user", "hi");

    Credentialed.Reply first = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions", body,
        "Authorization", "Bearer " + key);
    Credentialed.Reply second = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/chat/completions", body,
        "Authorization", "Bearer " + key);

    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertOpenAiError(second, 429, "rate_limit_error", "rate_limit_exceeded", null);
    assertThat(second.headers().firstValue("Retry-After")).isPresent();
  }

  private static void assertOpenAiError(Credentialed.Reply reply, int status, String type, String code, String param) {
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    JsonNode error = reply.json().path("error");
    assertThat(reply.json().size()).as(reply.body()).isEqualTo(1);
    assertThat(error.path("type").asText()).as(reply.body()).isEqualTo(type);
    assertThat(error.path("code").asText()).as(reply.body()).isEqualTo(code);
    assertThat(error.path("message").asText()).as(reply.body()).isNotBlank();
    assertThat(error.has("param")).as(reply.body()).isTrue();
    assertThat(error.path("param").isNull() ? null : error.path("param").asText()).as(reply.body()).isEqualTo(param);
    assertThat(error.has("trace_id")).as(reply.body()).isFalse();
    assertThat(reply.headers().firstValue("x-request-id")).as(reply.body()).isPresent();
  }
}
