package dev.colloquy.app.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.http.Json;
import dev.colloquy.persistence.tenant.KeyKind;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;

/** Tenants and keys through a running server's {@code /v1/admin} API, with the operator's admin token. */
final class RemoteTenantAdmin implements TenantAdmin {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final String server;
  private final String adminToken;
  private final HttpClient client = HttpClient.newHttpClient();

  RemoteTenantAdmin(URI server, String adminToken) {
    this.server = server.toString().replaceAll("/+$", "");
    this.adminToken = adminToken;
  }

  @Override
  public ObjectNode create(String name) {
    JsonNode created = send("POST", "/v1/admin/tenants", Json.MAPPER.createObjectNode().put("name", name).toString(), 201);
    return TenantLines.created(created.path("tenant_id").asText(), created.path("name").asText(),
        created.path("api_key").asText());
  }

  @Override
  public List<ObjectNode> list() {
    JsonNode tenants = send("GET", "/v1/admin/tenants", null, 200).path("tenants");
    List<ObjectNode> lines = new ArrayList<>();
    for (JsonNode tenant : tenants) {
      lines.add(TenantLines.tenant(tenant.path("tenant_id").asText(), tenant.path("name").asText(),
          tenant.path("created_at").asText()));
    }
    return lines;
  }

  /** The admin API issues keys by tenant id; a name is looked up in the tenant list first, as on the data directory. */
  @Override
  public ObjectNode issueKey(String tenant, KeyKind kind) {
    JsonNode tenants = send("GET", "/v1/admin/tenants", null, 200).path("tenants");
    String tenantId = StreamSupport.stream(tenants.spliterator(), false)
        .filter(t -> t.path("tenant_id").asText().equals(tenant)).findFirst()
        .or(() -> StreamSupport.stream(tenants.spliterator(), false)
            .filter(t -> t.path("name").asText().equals(tenant)).findFirst())
        .map(t -> t.path("tenant_id").asText())
        .orElseThrow(() -> TenantLines.noTenant(tenant));
    JsonNode key = send("POST", "/v1/admin/tenants/" + encoded(tenantId) + "/keys",
        kind == KeyKind.PUBLIC ? "{\"kind\":\"public\"}" : "", 201);
    return TenantLines.key(key.path("tenant_id").asText(), key.path("key_id").asText(), key.path("api_key").asText(),
        KeyKind.fromId(key.path("kind").asText("secret")));
  }

  @Override
  public ObjectNode revoke(String keyId) {
    HttpResponse<String> response = request("DELETE", "/v1/admin/keys/" + encoded(keyId), null);
    if (response.statusCode() == 404) {
      throw TenantLines.noKey(keyId);
    }
    expect(response, 204);
    return TenantLines.revoked(keyId);
  }

  @Override
  public void close() {
    client.close();
  }

  private JsonNode send(String method, String path, String body, int expected) {
    HttpResponse<String> response = request(method, path, body);
    expect(response, expected);
    try {
      return Json.MAPPER.readTree(response.body());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(response.uri() + " answered with a body that is not JSON", e);
    }
  }

  private HttpResponse<String> request(String method, String path, String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server + path)).timeout(TIMEOUT)
        .header("Authorization", "Bearer " + adminToken)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    try {
      return ServerRequests.send(client, request.build());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + server, e);
    }
  }

  /** A refusal is one line: the status and the error body's code and message. */
  private static void expect(HttpResponse<String> response, int expected) {
    if (response.statusCode() == expected) {
      return;
    }
    String reason = response.body();
    try {
      JsonNode error = Json.MAPPER.readTree(response.body()).path("error");
      if (error.has("code")) {
        reason = error.path("code").asText() + ": " + error.path("message").asText();
      }
    } catch (JsonProcessingException e) {
      // the raw body says it as well as anything
    }
    throw new IllegalStateException(response.request().method() + " " + response.uri() + " answered "
        + response.statusCode() + " " + reason);
  }

  private static String encoded(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
