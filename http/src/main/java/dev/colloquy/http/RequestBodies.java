package dev.colloquy.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Parses and validates request bodies field by field, so that every mistake gets its own code and a
 * message naming the field.
 */
final class RequestBodies {

  static final int MAX_IDEMPOTENCY_KEY = 255;
  static final int MAX_PERSONA = 8_000;
  /** A session's metadata, as compact JSON in UTF-8, and how deep its objects and arrays may nest. */
  static final int MAX_METADATA_BYTES = 16 * 1024;
  static final int MAX_METADATA_DEPTH = 8;

  record NewSession(Optional<String> sessionId, String persona, JsonNode metadata) {}

  record NewTurn(String message, Optional<String> turnId, Optional<String> idempotencyKey, List<String> models) {}

  private RequestBodies() {}

  static JsonNode parse(String body, boolean emptyAllowed) {
    if (body.isBlank()) {
      if (emptyAllowed) {
        return Json.MAPPER.createObjectNode();
      }
      throw notAnObject();
    }
    try {
      JsonNode node = Json.MAPPER.readTree(body);
      if (node == null || !node.isObject()) {
        throw notAnObject();
      }
      return node;
    } catch (JsonProcessingException e) {
      throw Json.unreadable(e, ErrorCode.MALFORMED_JSON);
    }
  }

  static NewSession newSession(String body) {
    JsonNode json = parse(body, true);
    Optional<String> sessionId = optionalUuid(json, "session_id");
    Optional<String> persona = optionalText(json, "persona");
    if (persona.isPresent() && persona.get().length() > MAX_PERSONA) {
      throw invalid("persona", "must be at most " + MAX_PERSONA + " characters");
    }
    JsonNode metadata = json.path("metadata");
    if (metadata.isMissingNode() || metadata.isNull()) {
      metadata = Json.MAPPER.createObjectNode();
    } else if (!metadata.isObject()) {
      throw invalid("metadata", "must be a JSON object");
    } else if (depth(metadata) > MAX_METADATA_DEPTH) {
      throw invalid("metadata", "must not nest objects and arrays more than " + MAX_METADATA_DEPTH + " deep");
    } else if (metadata.toString().getBytes(StandardCharsets.UTF_8).length > MAX_METADATA_BYTES) {
      throw invalid("metadata", "must be at most " + MAX_METADATA_BYTES + " bytes of JSON");
    }
    return new NewSession(sessionId, persona.orElse(null), metadata);
  }

  static NewTurn newTurn(String body, long maxMessageBytes) {
    JsonNode json = parse(body, false);
    JsonNode message = json.path("message");
    if (message.isMissingNode() || message.isNull()) {
      throw new ApiException(ErrorCode.MESSAGE_REQUIRED, "The field message is required");
    }
    if (!message.isTextual()) {
      throw invalid("message", "must be a string");
    }
    long bytes = message.asText().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxMessageBytes) {
      throw new ApiException(ErrorCode.MESSAGE_TOO_LARGE, "The message is " + bytes + " bytes; the limit is " + maxMessageBytes);
    }
    Optional<String> key = optionalText(json, "idempotency_key");
    if (key.isPresent() && (key.get().isBlank() || key.get().length() > MAX_IDEMPOTENCY_KEY)) {
      throw invalid("idempotency_key", "must be 1 to " + MAX_IDEMPOTENCY_KEY + " characters");
    }
    return new NewTurn(message.asText(), optionalUuid(json, "turn_id"), key, models(json));
  }

  private static List<String> models(JsonNode json) {
    JsonNode models = json.path("models");
    if (models.isMissingNode() || models.isNull()) {
      return List.of();
    }
    if (!models.isArray()) {
      throw invalid("models", "must be an array of model names");
    }
    List<String> names = new ArrayList<>();
    for (JsonNode model : models) {
      if (!model.isTextual() || model.asText().isBlank()) {
        throw invalid("models", "must be an array of model names");
      }
      if (names.contains(model.asText())) {
        throw invalid("models", "names model '" + model.asText() + "' twice");
      }
      names.add(model.asText());
    }
    return names;
  }

  /** How deep objects and arrays nest in {@code node}: 1 for an object of plain values. */
  private static int depth(JsonNode node) {
    int deepest = 0;
    for (JsonNode child : node) {
      deepest = Math.max(deepest, depth(child));
    }
    return node.isContainerNode() ? deepest + 1 : 0;
  }

  /** {@code {"title": "…"}}; whether the title is one the session takes is the session's rule. */
  static String newTitle(String body) {
    return optionalText(parse(body, false), "title")
        .orElseThrow(() -> new ApiException(ErrorCode.FIELD_REQUIRED, "The field title is required"));
  }

  static Optional<String> optionalText(JsonNode json, String field) {
    JsonNode value = json.path(field);
    if (value.isMissingNode() || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isTextual()) {
      throw invalid(field, "must be a string");
    }
    return Optional.of(value.asText());
  }

  private static Optional<String> optionalUuid(JsonNode json, String field) {
    Optional<String> value = optionalText(json, field);
    if (value.isPresent() && !isUuid(value.get())) {
      throw invalid(field, "must be a UUID");
    }
    return value.map(v -> UUID.fromString(v).toString());
  }

  static boolean isUuid(String value) {
    try {
      return UUID.fromString(value).toString().equalsIgnoreCase(value);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static ApiException notAnObject() {
    return new ApiException(ErrorCode.MALFORMED_JSON, "The request body must be a JSON object");
  }

  private static ApiException invalid(String field, String problem) {
    return new ApiException(ErrorCode.INVALID_FIELD, "The field " + field + " " + problem);
  }
}
