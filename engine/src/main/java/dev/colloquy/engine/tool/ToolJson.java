package dev.colloquy.engine.tool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The JSON of tools: their argument schemas, the model's arguments and the results sent back. */
public final class ToolJson {

  static final ObjectMapper MAPPER = new ObjectMapper();

  private ToolJson() {}

  /** The model's arguments as a JSON object; a {@link ToolFailure} when they are not one. */
  public static JsonNode arguments(String text) {
    try {
      JsonNode parsed = MAPPER.readTree(text == null || text.isBlank() ? "{}" : text);
      if (parsed != null && parsed.isObject()) {
        return parsed;
      }
    } catch (JsonProcessingException e) {
      // reported below, without the parser's message (it quotes the text)
    }
    throw new ToolFailure("invalid_arguments", "The arguments are not a JSON object");
  }

  /** A required, non-blank string argument. */
  static String text(JsonNode arguments, String field) {
    JsonNode value = arguments.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new ToolFailure("invalid_arguments", "The argument '" + field + "' must be a non-empty string");
    }
    return value.asText().strip();
  }

  /** A schema of an object whose properties are all required strings, named with their descriptions. */
  static ObjectNode stringsSchema(String... namesAndDescriptions) {
    ObjectNode schema = MAPPER.createObjectNode().put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    var required = schema.putArray("required");
    for (int i = 0; i < namesAndDescriptions.length; i += 2) {
      properties.putObject(namesAndDescriptions[i]).put("type", "string").put("description", namesAndDescriptions[i + 1]);
      required.add(namesAndDescriptions[i]);
    }
    schema.put("additionalProperties", false);
    return schema;
  }

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("A tree always writes", e);
    }
  }

  /** The content of an error result: {@code {"error": code, "message": message}}. */
  public static String error(String code, String message) {
    return write(object().put("error", code).put("message", message));
  }
}
