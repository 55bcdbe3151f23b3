package dev.colloquy.engine.model.openai;

import com.openai.core.JsonValue;
import com.openai.models.ResponseFormatJsonSchema;
import dev.colloquy.engine.model.ResponseSchema;
import java.util.LinkedHashMap;
import java.util.Map;

/** A {@link ResponseSchema} as openai-java's strict {@code json_schema} response format: part of the reference of {@link ChatCompletionBodyTest}. */
final class StructuredOutput {

  private StructuredOutput() {}

  static ResponseFormatJsonSchema format(ResponseSchema schema) {
    Map<String, JsonValue> fields = new LinkedHashMap<>();
    schema.schema().properties().forEach(field -> fields.put(field.getKey(), JsonValue.fromJsonNode(field.getValue())));
    return ResponseFormatJsonSchema.builder()
        .jsonSchema(ResponseFormatJsonSchema.JsonSchema.builder()
            .name(schema.name())
            .strict(true)
            .schema(ResponseFormatJsonSchema.JsonSchema.Schema.builder().putAllAdditionalProperties(fields).build())
            .build())
        .build();
  }
}
