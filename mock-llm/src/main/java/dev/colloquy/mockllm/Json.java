package dev.colloquy.mockllm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;
import java.util.Optional;

/** JSON in OpenAI's snake_case: reading requests leniently, writing the wire records. */
final class Json {
  private static final JsonMapper MAPPER =
      JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();

  private Json() {}

  static JsonNode parseObject(String body) {
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw InvalidRequest.unparsable();
    }
    if (root == null || !root.isObject()) {
      throw InvalidRequest.unparsable();
    }
    return root;
  }

  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String requiredText(JsonNode root, String field) {
    JsonNode value = root.get(field);
    if (value == null || value.isNull()) {
      throw InvalidRequest.missing(field);
    }
    if (!value.isTextual() || value.asText().isBlank()) {
      throw InvalidRequest.invalid(field, "'" + field + "' must be a non-empty string.");
    }
    return value.asText();
  }

  /** An optional positive integer field; absent and null mean "not given". */
  static Optional<Integer> optionalPositiveInt(JsonNode root, String field) {
    JsonNode value = root.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.canConvertToInt() || !value.isIntegralNumber() || value.intValue() < 1) {
      throw InvalidRequest.invalid(field, "'" + field + "' must be a positive integer.");
    }
    return Optional.of(value.intValue());
  }
}
