package dev.colloquy.http.auth;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.Errors;
import dev.colloquy.http.Json;
import dev.colloquy.persistence.tenant.DuplicateTenantException;
import dev.colloquy.persistence.tenant.IssuedKey;
import dev.colloquy.persistence.tenant.KeyKind;
import dev.colloquy.persistence.tenant.NewTenant;
import dev.colloquy.persistence.tenant.Tenant;
import dev.colloquy.persistence.tenant.TenantStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

/**
 * The operator's API under {@code /v1/admin}: create and list tenants, issue and revoke keys. A key
 * is in a response only when it is issued; it cannot be read again.
 */
public final class TenantAdminRoutes extends AllDirectives {

  /** Letters, digits, dot, dash and underscore; a name may appear in URLs, logs and JWT claims. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  private static final java.util.Set<String> KINDS = java.util.Set.of("secret", "public");

  private final TenantStore tenants;
  private final Executor blocking;

  public TenantAdminRoutes(TenantStore tenants, Executor blocking) {
    this.tenants = tenants;
    this.blocking = blocking;
  }

  /** The routes, already past the admin check. */
  public Route route(String traceId) {
    return pathPrefix("v1", () -> pathPrefix("admin", () -> concat(
        pathPrefix("tenants", () -> concat(
            pathEndOrSingleSlash(() -> concat(
                post(() -> entity(Unmarshaller.entityToString(), body -> answer(() -> create(body, traceId)))),
                get(() -> answer(this::list)))),
            pathPrefix(segment(), tenantId -> path("keys", () -> post(() -> entity(Unmarshaller.entityToString(),
                body -> answer(() -> issue(tenantId, body, traceId)))))))),
        path(segment("keys").slash(segment()), keyId -> delete(() -> answer(() -> revoke(keyId, traceId)))))));
  }

  private Route answer(Supplier<HttpResponse> work) {
    return onSuccess(CompletableFuture.supplyAsync(work, blocking), this::complete);
  }

  /** A request body read as a JSON object, or the 400 to answer instead. */
  private record Body(JsonNode json, HttpResponse refusal) {

    static Body of(String body, String traceId) {
      try {
        JsonNode json = Json.MAPPER.readTree(body);
        return json != null && json.isObject() ? new Body(json, null) : new Body(null, Errors.response(
            StatusCodes.BAD_REQUEST, "MALFORMED_REQUEST", "The body must be a JSON object", traceId));
      } catch (JsonProcessingException e) {
        return new Body(null, Json.duplicateKey(e)
            .map(key -> Errors.response(StatusCodes.BAD_REQUEST, ErrorCode.DUPLICATE_JSON_KEY.name(),
                "The request body names the key '" + key + "' more than once", traceId))
            .orElseGet(() -> Errors.response(StatusCodes.BAD_REQUEST, "MALFORMED_REQUEST",
                "The body is not valid JSON", traceId)));
      }
    }
  }

  private HttpResponse create(String body, String traceId) {
    Body request = Body.of(body, traceId);
    if (request.refusal() != null) {
      return request.refusal();
    }
    JsonNode name = request.json().path("name");
    if (!name.isTextual() || !NAME.matcher(name.asText()).matches()) {
      return Errors.response(StatusCodes.UNPROCESSABLE_ENTITY, "INVALID_TENANT_NAME",
          "name must be 1 to 64 letters, digits, '.', '-' or '_', starting with a letter or digit", traceId);
    }
    try {
      NewTenant created = tenants.create(name.asText());
      return json(StatusCodes.CREATED, Json.MAPPER.createObjectNode()
          .put("tenant_id", created.tenant().tenantId())
          .put("name", created.tenant().name())
          .put("api_key", created.key().apiKey()));
    } catch (DuplicateTenantException e) {
      return Errors.response(StatusCodes.CONFLICT, "TENANT_EXISTS", e.getMessage(), traceId);
    }
  }

  private HttpResponse list() {
    ObjectNode body = Json.MAPPER.createObjectNode();
    ArrayNode list = body.putArray("tenants");
    for (Tenant tenant : tenants.list()) {
      list.addObject().put("tenant_id", tenant.tenantId()).put("name", tenant.name())
          .put("created_at", tenant.createdAt().toString());
    }
    return json(StatusCodes.OK, body);
  }

  /** A secret key, or with {@code {"kind": "public"}} a public key for the widget. */
  private HttpResponse issue(String tenantId, String body, String traceId) {
    KeyKind kind = KeyKind.SECRET;
    if (!body.isBlank()) {
      Body request = Body.of(body, traceId);
      if (request.refusal() != null) {
        return request.refusal();
      }
      JsonNode requested = request.json().path("kind");
      if (!requested.isMissingNode() && !requested.isNull()) {
        if (!requested.isTextual() || !KINDS.contains(requested.asText())) {
          return Errors.response(StatusCodes.UNPROCESSABLE_ENTITY, "INVALID_KEY_KIND",
              "kind must be \"secret\" or \"public\"", traceId);
        }
        kind = KeyKind.fromId(requested.asText());
      }
    }
    return tenants.issueKey(tenantId, kind)
        .map(TenantAdminRoutes::issued)
        .orElseGet(() -> Errors.response(StatusCodes.NOT_FOUND, "TENANT_NOT_FOUND", "Tenant not found", traceId));
  }

  private static HttpResponse issued(IssuedKey key) {
    return json(StatusCodes.CREATED, Json.MAPPER.createObjectNode()
        .put("tenant_id", key.tenantId())
        .put("key_id", key.keyId())
        .put("kind", key.kind().id())
        .put("api_key", key.apiKey()));
  }

  private HttpResponse revoke(String keyId, String traceId) {
    return tenants.revoke(keyId)
        ? HttpResponse.create().withStatus(StatusCodes.NO_CONTENT)
        : Errors.response(StatusCodes.NOT_FOUND, "KEY_NOT_FOUND", "No such active key", traceId);
  }

  private static HttpResponse json(StatusCode status, ObjectNode body) {
    return HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString()));
  }
}
