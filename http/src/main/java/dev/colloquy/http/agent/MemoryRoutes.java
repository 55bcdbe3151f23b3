package dev.colloquy.http.agent;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.agent.Memory;
import dev.colloquy.engine.agent.MemoryStore;
import dev.colloquy.engine.agent.UserContext;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.ApiException;
import dev.colloquy.http.Errors;
import dev.colloquy.http.Json;
import dev.colloquy.http.auth.Principal;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

/**
 * What the agent keeps about a user (seed 002), for the tenant's credential and for the user
 * themself: {@code GET/DELETE /v1/users/{user_id}/memories}, {@code DELETE …/memories/{memory_id}},
 * {@code GET/PUT /v1/users/{user_id}/context}. A user asking about another user is answered as if
 * that user did not exist.
 */
public final class MemoryRoutes extends AllDirectives {

  static final String USER_NOT_FOUND = "USER_NOT_FOUND";
  static final String MEMORY_NOT_FOUND = "MEMORY_NOT_FOUND";
  static final int MAX_USER_ID = 256;
  private static final Set<String> CONTEXT_FIELDS = Set.of("plan", "usage", "preferences");

  private final MemoryStore memories;
  private final Executor blocking;

  public MemoryRoutes(MemoryStore memories, Executor blocking) {
    this.memories = memories;
    this.blocking = blocking;
  }

  public Route route(Principal caller, String traceId) {
    return pathPrefix(segment("v1").slash("users").slash(segment()), userId -> reachable(caller, userId)
        ? userRoute(caller.tenantId(), userId, traceId)
        : complete(Errors.response(StatusCodes.NOT_FOUND, USER_NOT_FOUND, "No such user", traceId)));
  }

  private Route userRoute(String tenantId, String userId, String traceId) {
    return concat(
        pathPrefix("memories", () -> concat(
            pathEndOrSingleSlash(() -> concat(
                get(() -> answer(() -> listed(tenantId, userId))),
                delete(() -> answer(() -> forgotten(tenantId, userId))))),
            path(segment(), memoryId -> delete(() -> forget(tenantId, userId, memoryId, traceId))))),
        path("context", () -> concat(
            get(() -> answer(() -> context(tenantId, userId))),
            put(() -> entity(Unmarshaller.entityToString(), body -> setContext(tenantId, userId, body, traceId))))));
  }

  private Route forget(String tenantId, String userId, String memoryId, String traceId) {
    return onSuccess(blocking(() -> memories.forget(tenantId, userId, memoryId)), forgot -> forgot
        ? complete(StatusCodes.NO_CONTENT)
        : complete(Errors.response(StatusCodes.NOT_FOUND, MEMORY_NOT_FOUND, "The user has no memory with this id",
            traceId)));
  }

  /** The tenant's credential reaches its every user; a user only themself. */
  private static boolean reachable(Principal caller, String userId) {
    return !userId.isBlank() && userId.length() <= MAX_USER_ID
        && caller.userId().map(userId::equals).orElse(true);
  }

  private ObjectNode listed(String tenantId, String userId) {
    ObjectNode body = Json.MAPPER.createObjectNode().put("user_id", userId);
    var items = body.putArray("memories");
    for (Memory memory : memories.list(tenantId, userId)) {
      items.addObject().put("memory_id", memory.memoryId()).put("content", memory.content())
          .put("source", memory.source()).put("created_at", memory.createdAt().toString());
    }
    return body;
  }

  private ObjectNode forgotten(String tenantId, String userId) {
    return Json.MAPPER.createObjectNode().put("user_id", userId).put("deleted", memories.forgetAll(tenantId, userId));
  }

  private ObjectNode context(String tenantId, String userId) {
    Optional<UserContext> known = memories.context(tenantId, userId);
    ObjectNode body = Json.MAPPER.createObjectNode().put("user_id", userId);
    body.put("plan", known.map(UserContext::plan).orElse(null));
    body.set("usage", known.map(UserContext::usage).orElse(null));
    body.set("preferences", known.map(UserContext::preferences).orElse(null));
    return body;
  }

  private Route setContext(String tenantId, String userId, String body, String traceId) {
    JsonNode json;
    try {
      json = Json.MAPPER.readTree(body.isBlank() ? "{}" : body);
    } catch (JsonProcessingException e) {
      ApiException unreadable = Json.unreadable(e, ErrorCode.MALFORMED_JSON);
      return complete(Errors.response(StatusCodes.BAD_REQUEST, unreadable.code(), unreadable.getMessage(),
          traceId));
    }
    if (json == null || !json.isObject()) {
      return complete(Errors.response(StatusCodes.BAD_REQUEST, "MALFORMED_JSON", "The request body must be a JSON object",
          traceId));
    }
    for (String field : (Iterable<String>) json::fieldNames) {
      if (!CONTEXT_FIELDS.contains(field)) {
        return complete(Errors.response(StatusCodes.UNPROCESSABLE_ENTITY, "INVALID_FIELD",
            "Unknown field '" + field + "'; a user's context has plan, usage and preferences", traceId));
      }
    }
    JsonNode plan = json.path("plan");
    if (!plan.isMissingNode() && !plan.isNull() && !plan.isTextual()) {
      return complete(Errors.response(StatusCodes.UNPROCESSABLE_ENTITY, "INVALID_FIELD", "plan must be a string",
          traceId));
    }
    if (holdsNul(json)) {
      return complete(Errors.response(StatusCodes.UNPROCESSABLE_ENTITY, "INVALID_FIELD",
          "A user's context may not hold the NUL character (\\u0000) in a name or a text", traceId));
    }
    UserContext context = new UserContext(plan.isTextual() ? plan.asText() : null, value(json, "usage"),
        value(json, "preferences"));
    return answer(() -> {
      memories.setContext(tenantId, userId, context);
      return context(tenantId, userId);
    });
  }

  /** PostgreSQL's jsonb, where the context is kept, holds no NUL: refused here, it would fail the write. */
  private static boolean holdsNul(JsonNode json) {
    if (json.isTextual()) {
      return json.textValue().indexOf('\u0000') >= 0;
    }
    for (var field : json.properties()) {
      if (field.getKey().indexOf('\u0000') >= 0 || holdsNul(field.getValue())) {
        return true;
      }
    }
    if (json.isArray()) {
      for (JsonNode element : json) {
        if (holdsNul(element)) {
          return true;
        }
      }
    }
    return false;
  }

  private static JsonNode value(JsonNode json, String field) {
    JsonNode value = json.get(field);
    return value == null || value.isNull() ? null : value;
  }

  private Route answer(Supplier<JsonNode> work) {
    return onSuccess(blocking(work), body -> json(StatusCodes.OK, body));
  }

  private <T> CompletionStage<T> blocking(Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, blocking);
  }

  private Route json(StatusCode status, JsonNode body) {
    return complete(HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString())));
  }

}
