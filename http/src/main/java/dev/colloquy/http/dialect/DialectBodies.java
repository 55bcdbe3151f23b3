package dev.colloquy.http.dialect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.Json;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;

/**
 * Reads the fields of a dialect's JSON request body, refusing each mistake with the code of API.md and
 * a message naming the field: a body that is not a JSON object (MALFORMED_JSON), a missing field
 * (FIELD_REQUIRED), a field of the wrong type or value (INVALID_FIELD).
 */
final class DialectBodies {

  private DialectBodies() {}

  static JsonNode object(String body) {
    if (body.isBlank()) {
      throw new DialectRefusal(ErrorCode.MALFORMED_JSON, "The request body must be a JSON object");
    }
    try {
      JsonNode node = Json.MAPPER.readTree(body);
      if (node == null || !node.isObject()) {
        throw new DialectRefusal(ErrorCode.MALFORMED_JSON, "The request body must be a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new DialectRefusal(ErrorCode.MALFORMED_JSON, "The request body is not valid JSON: " + e.getOriginalMessage());
    }
  }

  /** An empty body reads as an empty object, for requests whose every field is optional. */
  static JsonNode objectOrEmpty(String body) {
    return body.isBlank() ? Json.MAPPER.createObjectNode() : object(body);
  }

  static String requiredText(JsonNode json, String field) {
    return optionalText(json, field)
        .orElseThrow(() -> new DialectRefusal(ErrorCode.FIELD_REQUIRED, "The field " + field + " is required"));
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

  /** A string of 1 to {@code maxLength} characters without control characters. */
  static Optional<String> optionalName(JsonNode json, String field, int maxLength) {
    Optional<String> value = optionalText(json, field);
    if (value.isPresent() && (value.get().isBlank() || value.get().length() > maxLength
        || value.get().chars().anyMatch(Character::isISOControl))) {
      throw invalid(field, "must be 1 to " + maxLength + " characters without control characters");
    }
    return value;
  }

  static String requiredName(JsonNode json, String field, int maxLength) {
    return optionalName(json, field, maxLength)
        .orElseThrow(() -> new DialectRefusal(ErrorCode.FIELD_REQUIRED, "The field " + field + " is required"));
  }

  static boolean optionalBoolean(JsonNode json, String field, boolean otherwise) {
    JsonNode value = json.path(field);
    if (value.isMissingNode() || value.isNull()) {
      return otherwise;
    }
    if (!value.isBoolean()) {
      throw invalid(field, "must be true or false");
    }
    return value.asBoolean();
  }

  /**
   * A message within the size limit (MESSAGE_REQUIRED when absent, as in the canonical API); an empty
   * one is left to the engine, which refuses it as every API does.
   */
  static String message(JsonNode json, String field, long maxBytes) {
    String message = optionalText(json, field)
        .orElseThrow(() -> new DialectRefusal(ErrorCode.MESSAGE_REQUIRED, "The field " + field + " is required"));
    long bytes = message.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxBytes) {
      throw new DialectRefusal(ErrorCode.MESSAGE_TOO_LARGE, "The " + field + " is " + bytes + " bytes; the limit is " + maxBytes);
    }
    return message;
  }

  static boolean isUuid(String value) {
    try {
      return UUID.fromString(value).toString().equalsIgnoreCase(value);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  static DialectRefusal invalid(String field, String problem) {
    return new DialectRefusal(ErrorCode.INVALID_FIELD, "The field " + field + " " + problem);
  }
}
