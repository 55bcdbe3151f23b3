package dev.colloquy.http.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.ApiException;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Whatever fails below a dialect's routes reaches its client in the shape the dialect gives, over real
 * HTTP: the dialect's own refusals, the canonical API's (503s with their Retry-After), failures of an
 * asynchronous step, and an unexpected failure as a 500 that quotes nothing of it.
 */
class DialectErrorsTest extends AllDirectives {

  private static final String TRACE_ID = "trace-1";
  private static final String SECRET = "what the client sent";

  private static ActorTestKit testKit;
  private static ServerBinding binding;
  private static final HttpClient client = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    testKit = ActorTestKit.create("dialect-errors");
    binding = Http.get(testKit.system()).newServerAt("127.0.0.1", 0).bind(new DialectErrorsTest().route())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    // The client's kept-alive connection would hold the system's shutdown until it idles out.
    binding.terminate(Duration.ofSeconds(1)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    testKit.shutdownTestKit();
  }

  /** A dialect whose shape is {@code {"problem": {code, message, trace, retry}}}, with the refusal's status. */
  private static org.apache.pekko.http.javadsl.model.HttpResponse shape(DialectRefusal refusal, String traceId) {
    String body = Json.MAPPER.createObjectNode().set("problem", Json.MAPPER.createObjectNode()
        .put("code", refusal.code()).put("message", refusal.getMessage()).put("trace", traceId)
        .put("retry", refusal.retryAfterSeconds())).toString();
    return org.apache.pekko.http.javadsl.model.HttpResponse.create().withStatus(refusal.status())
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body));
  }

  private Route route() {
    DialectErrors errors = new DialectErrors("Test", DialectErrorsTest::shape);
    return errors.handle(TRACE_ID, () -> concat(
        path("refused", () -> {
          throw new DialectRefusal(ErrorCode.FIELD_REQUIRED, "The field content is required");
        }),
        path("unavailable", () -> {
          throw new ApiException(ErrorCode.SHUTTING_DOWN, "This node is shutting down");
        }),
        path("later", () -> onSuccess(CompletableFuture.<String>failedFuture(
            new DialectRefusal(ErrorCode.SESSION_NOT_FOUND, "Session not found")), this::complete)),
        path("unexpected", () -> {
          throw new IllegalStateException(SECRET);
        })));
  }

  @Test
  void aDialectsRefusalIsAnsweredInItsShapeWithItsStatus() throws Exception {
    HttpResponse<String> response = get("/refused");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(problem(response)).isEqualTo(Json.MAPPER.readTree("""
        {"code": "FIELD_REQUIRED", "message": "The field content is required", "trace": "trace-1", "retry": 0}"""));
  }

  @Test
  void aCanonicalRefusalKeepsItsStatusAndCodeAndA503SaysWhenToTryAgain() throws Exception {
    HttpResponse<String> response = get("/unavailable");

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(problem(response).path("code").asText()).isEqualTo("SHUTTING_DOWN");
    assertThat(problem(response).path("retry").asLong()).isEqualTo(5);
  }

  @Test
  void aRefusalOfAnAsynchronousStepIsAnsweredAsTheSameRefusal() throws Exception {
    HttpResponse<String> response = get("/later");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(problem(response).path("code").asText()).isEqualTo("SESSION_NOT_FOUND");
  }

  @Test
  void anUnexpectedFailureIsA500InTheDialectsShapeThatQuotesNothingOfIt() throws Exception {
    HttpResponse<String> response = get("/unexpected");

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(problem(response).path("code").asText()).isEqualTo("INTERNAL_ERROR");
    assertThat(problem(response).path("trace").asText()).isEqualTo(TRACE_ID);
    assertThat(response.body()).doesNotContain(SECRET).doesNotContain("IllegalStateException");
  }

  private static HttpResponse<String> get(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + path);
    return client.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode problem(HttpResponse<String> response) throws Exception {
    return Json.MAPPER.readTree(response.body()).path("problem");
  }
}
