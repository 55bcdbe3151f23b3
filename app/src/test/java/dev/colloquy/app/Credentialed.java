package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Requests with exactly the credential headers a test names (none added), answered with their
 * headers, for checks on {@code WWW-Authenticate} and the 401/403 bodies.
 */
final class Credentialed {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  record Reply(int status, java.net.http.HttpHeaders headers, String body) {
    JsonNode json() {
      try {
        return Api.JSON.readTree(body);
      } catch (JsonProcessingException e) {
        throw new AssertionError("not JSON (" + status + "): " + body, e);
      }
    }

    String code() {
      return json().path("error").path("code").asText();
    }
  }

  private Credentialed() {}

  /** {@code headers} are name, value pairs; a body is sent as JSON. */
  static Reply send(String baseUrl, String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (headers.length > 0) {
      request.headers(headers);
    }
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(response.statusCode(), response.headers(), response.body());
  }

  static Reply get(String baseUrl, String path, String... headers) throws Exception {
    return send(baseUrl, "GET", path, null, headers);
  }

  static Reply bearer(String baseUrl, String path, String token) throws Exception {
    return get(baseUrl, path, "Authorization", "Bearer " + token);
  }

  /** 401 with {@code WWW-Authenticate: Bearer} and the error body of API.md, naming nothing of the credential. */
  static void assertUnauthenticated(Reply reply, String what) {
    assertThat(reply.status()).as(what + ": " + reply.body()).isEqualTo(401);
    assertThat(reply.headers().allValues("WWW-Authenticate")).as(what).containsExactly("Bearer");
    assertErrorBody(reply, "UNAUTHENTICATED", what);
  }

  static void assertForbidden(Reply reply, String what) {
    assertThat(reply.status()).as(what + ": " + reply.body()).isEqualTo(403);
    assertErrorBody(reply, "FORBIDDEN", what);
  }

  static void assertErrorBody(Reply reply, String code, String what) {
    JsonNode error = reply.json().path("error");
    assertThat(reply.json().size()).as(what + ": only the error").isEqualTo(1);
    assertThat(error.path("code").asText()).as(what).isEqualTo(code);
    assertThat(error.path("message").asText()).as(what).isNotBlank();
    assertThat(error.path("trace_id").asText()).as(what).isNotBlank();
  }
}
