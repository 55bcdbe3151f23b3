package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.app.cli.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * A public key ({@code cpk_…}) for the web widget, issued by the admin API and by {@code colloquy tenants
 * keys create --public}: it runs the widget's turns from the tenant's allowed origins for the visitor the
 * widget names, and reaches nothing else.
 */
class PublicKeyIntegrationTest {

  static final String ADMIN = "admin-token-for-public-keys";
  static final String SHOP = "http://shop.example:3000";

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of("colloquy.admin.token", ADMIN));

  private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private static Api.Response call(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(app.colloquy().baseUrl() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(30));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Api.Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
        response.body());
  }

  private static String[] visitor(String key, String visitorId, String origin) {
    return new String[] {"Authorization", "Bearer " + key, "X-User-Id", visitorId, "Origin", origin};
  }

  private static void assertError(Api.Response response, int status, String code) {
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    JsonNode error = response.json().path("error");
    assertThat(error.path("code").asText()).isEqualTo(code);
    assertThat(error.path("message").asText()).isNotBlank();
    assertThat(error.path("trace_id").asText()).hasSize(32);
  }

  private static JsonNode issuePublicKey() throws Exception {
    Api.Response issued = call("POST", "/v1/admin/tenants/default/keys", "{\"kind\":\"public\"}",
        "Authorization", "Bearer " + ADMIN);
    assertThat(issued.status()).as(issued.body()).isEqualTo(201);
    return issued.json();
  }

  private static void allowShop() throws Exception {
    Api.Response config = app.api().send("PUT", "/v1/config", "{\"allowed_origins\":[\"" + SHOP + "\"]}");
    assertThat(config.status()).as(config.body()).isEqualTo(200);
  }

  @Test
  void aPublicKeyRunsTheWidgetsTurnsFromAnAllowedOriginForItsVisitorOnly() throws Exception {
    allowShop();
    JsonNode issued = issuePublicKey();
    String key = issued.path("api_key").asText();
    assertThat(key).matches("cpk_[0-9a-f]{16}_[0-9a-f]{64}");
    assertThat(issued.path("kind").asText()).isEqualTo("public");
    String alice = UUID.randomUUID().toString().replace("-", "");

    Api.Response opened = call("POST", "/v1/sessions", "{}", visitor(key, alice, SHOP));
    assertThat(opened.status()).as(opened.body()).isEqualTo(201);
    String sessionId = opened.json().path("session_id").asText();
    HttpResponse<String> stream = http.send(HttpRequest.newBuilder(
            URI.create(app.colloquy().baseUrl() + "/v1/sessions/" + sessionId + "/turns"))
        .POST(HttpRequest.BodyPublishers.ofString(Api.turn("Where is my order?")))
        .header("Content-Type", "application/json").header("Accept", "text/event-stream")
        .headers(visitor(key, alice, SHOP)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(stream.statusCode()).isEqualTo(200);
    assertThat(stream.headers().firstValue("Access-Control-Allow-Origin")).hasValue(SHOP);
    assertThat(stream.body()).contains("event: token", "event: turn.completed");

    // Another visitor, with the same key and origin, cannot touch Alice's session.
    String mallory = UUID.randomUUID().toString().replace("-", "");
    assertError(call("POST", "/v1/sessions/" + sessionId + "/turns", Api.turn("Hi"), visitor(key, mallory, SHOP)),
        404, "SESSION_NOT_FOUND");
    assertError(call("POST", "/v1/sessions/" + sessionId + "/close", "{}", visitor(key, mallory, SHOP)),
        404, "SESSION_NOT_FOUND");
    // Nor can the tenant's own user of that name: the visitor acts as "visitor:<id>".
    assertError(app.api().send("GET", "/v1/sessions/" + sessionId, null, "X-User-Id", alice), 404, "SESSION_NOT_FOUND");
    assertThat(app.api().get("/v1/sessions/" + sessionId).json().path("messages")).hasSize(2);

    // Nothing but the widget's routes.
    for (String[] route : List.of(new String[] {"GET", "/v1/sessions"}, new String[] {"GET", "/v1/sessions/" + sessionId},
        new String[] {"DELETE", "/v1/sessions/" + sessionId}, new String[] {"GET", "/v1/sessions/" + sessionId + "/journal"},
        new String[] {"GET", "/v1/config"}, new String[] {"GET", "/v1/knowledge/list"}, new String[] {"GET", "/v1/billing"})) {
      assertError(call(route[0], route[1], null, visitor(key, alice, SHOP)), 403, "FORBIDDEN");
    }
    assertError(call("PUT", "/v1/config", "{\"allowed_origins\":[\"http://evil.example\"]}", visitor(key, alice, SHOP)),
        403, "FORBIDDEN");
    assertError(call("PATCH", "/v1/sessions/" + sessionId, "{\"title\":\"mine\"}", visitor(key, alice, SHOP)),
        403, "FORBIDDEN");
    assertError(call("POST", "/v1/admin/tenants", "{\"name\":\"x\"}", visitor(key, alice, SHOP)), 403, "FORBIDDEN");

    // Only from the tenant's allowed origins, only for a named visitor.
    assertError(call("POST", "/v1/sessions", "{}", "Authorization", "Bearer " + key, "X-User-Id", alice),
        403, "ORIGIN_NOT_ALLOWED");
    assertError(call("POST", "/v1/sessions", "{}", visitor(key, alice, "http://evil.example")), 403, "ORIGIN_NOT_ALLOWED");
    assertError(call("POST", "/v1/sessions", "{}", "Authorization", "Bearer " + key, "Origin", SHOP),
        401, "UNAUTHENTICATED");
    assertError(call("POST", "/v1/sessions", "{}", visitor(key, "short", SHOP)), 401, "UNAUTHENTICATED");
    // A public key's id and secret under the secret keys' prefix open nothing.
    assertError(call("GET", "/v1/sessions", null, "Authorization", "Bearer " + key.replaceFirst("^cpk_", "ck_")),
        401, "UNAUTHENTICATED");

    assertThat(call("POST", "/v1/sessions/" + sessionId + "/close", "{}", visitor(key, alice, SHOP)).status())
        .isEqualTo(200);

    // The support dialect's widget routes open too, its transcript for the visitor's own session only.
    Api.Response started = call("POST", "/v1/session/start", "{}", visitor(key, alice, SHOP));
    assertThat(started.status()).as(started.body()).isEqualTo(200);
    String supportSession = started.json().path("session_id").asText();
    Api.Response answered = call("POST", "/v1/chat/message",
        "{\"session_id\":\"" + supportSession + "\",\"message\":\"Where is my order?\"}", visitor(key, alice, SHOP));
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    Api.Response transcript = call("GET", "/v1/session/" + supportSession + "/transcript", null, visitor(key, alice, SHOP));
    assertThat(transcript.status()).as(transcript.body()).isEqualTo(200);
    assertThat(transcript.json().path("messages")).hasSize(2);
    assertThat(transcript.json().at("/messages/0/content").asText()).isEqualTo("Where is my order?");
    assertThat(transcript.json().at("/messages/1/content").asText())
        .isEqualTo(answered.json().path("response").asText());
    // Another visitor's, the tenant's own (opened with its secret key) and the tenant's user's of the
    // visitor's id answer as missing ones; from a foreign origin, or with the canonical route, nothing.
    assertError(call("GET", "/v1/session/" + supportSession + "/transcript", null, visitor(key, mallory, SHOP)),
        404, "INVALID_SESSION");
    String tenants = app.api().openSession();
    assertThat(app.api().post("/v1/sessions/" + tenants + "/turns", Api.turn("The tenant's own question")).status())
        .isEqualTo(200);
    String usersSession = app.api().send("POST", "/v1/sessions", "{}", "X-User-Id", alice).json().path("session_id").asText();
    for (String foreign : List.of(tenants, usersSession, UUID.randomUUID().toString())) {
      Api.Response refused = call("GET", "/v1/session/" + foreign + "/transcript", null, visitor(key, alice, SHOP));
      assertError(refused, 404, "INVALID_SESSION");
      assertThat(refused.body()).doesNotContain("The tenant's own question");
    }
    assertError(call("GET", "/v1/session/" + supportSession + "/transcript", null,
        visitor(key, alice, "http://evil.example")), 403, "ORIGIN_NOT_ALLOWED");
    assertError(call("GET", "/v1/sessions/" + supportSession, null, visitor(key, alice, SHOP)), 403, "FORBIDDEN");
    assertThat(call("POST", "/v1/session/" + supportSession + "/end", "{}", visitor(key, alice, SHOP)).status())
        .isEqualTo(200);
    assertThat(call("GET", "/v1/session/" + supportSession + "/transcript", null, visitor(key, alice, SHOP)).status())
        .as("an ended session's transcript stays readable by its visitor").isEqualTo(200);

    // Revoked like any key.
    assertThat(call("DELETE", "/v1/admin/keys/" + issued.path("key_id").asText(), null,
        "Authorization", "Bearer " + ADMIN).status()).isEqualTo(204);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Api.Response afterRevoke = call("POST", "/v1/sessions", "{}", visitor(key, alice, SHOP));
    while (afterRevoke.status() != 401 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
      afterRevoke = call("POST", "/v1/sessions", "{}", visitor(key, alice, SHOP));
    }
    assertError(afterRevoke, 401, "UNAUTHENTICATED");
  }

  @Test
  void theAdminApiAndTheCommandLineIssuePublicKeysAndRefuseAnUnknownKind() throws Exception {
    assertError(call("POST", "/v1/admin/tenants/default/keys", "{\"kind\":\"secretive\"}", "Authorization", "Bearer " + ADMIN),
        422, "INVALID_KEY_KIND");
    assertError(call("POST", "/v1/admin/tenants/default/keys", "[1]", "Authorization", "Bearer " + ADMIN),
        400, "MALFORMED_REQUEST");
    Api.Response secret = call("POST", "/v1/admin/tenants/default/keys", "", "Authorization", "Bearer " + ADMIN);
    assertThat(secret.status()).isEqualTo(201);
    assertThat(secret.json().path("api_key").asText()).startsWith("ck_");
    assertThat(secret.json().path("kind").asText()).isEqualTo("secret");

    allowShop();
    System.setProperty("colloquy.admin.token", ADMIN);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit;
    try {
      exit = new CommandLine(new Cli()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
          .execute("tenants", "keys", "create", "dev", "--public", "--server", app.colloquy().baseUrl());
    } finally {
      System.clearProperty("colloquy.admin.token");
    }
    assertThat(exit).as(err.toString()).isZero();
    JsonNode line = Api.JSON.readTree(out.toString().strip());
    List<String> fields = new ArrayList<>();
    line.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).containsExactly("tenant_id", "key_id", "api_key", "kind");
    assertThat(line.path("kind").asText()).isEqualTo("public");
    String key = line.path("api_key").asText();
    assertThat(key).startsWith("cpk_");
    assertThat(call("POST", "/v1/sessions", "{}", visitor(key, UUID.randomUUID().toString(), SHOP)).status())
        .isEqualTo(201);
  }
}
