package dev.colloquy.ingestion.store.qdrant;

import static io.qdrant.client.ValueFactory.list;
import static io.qdrant.client.ValueFactory.nullValue;
import static io.qdrant.client.ValueFactory.value;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.store.ChunkJson;
import io.qdrant.client.grpc.JsonWithInt.Value;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A chunk as a Qdrant payload: the fields of seed 004 §6.3 under the names {@link ChunkJson} gives
 * them ({@code tenant_id}, {@code document_id}, {@code latest_version}, …), as typed payload values
 * rather than one blob, so they can be filtered on and read by other tools.
 */
final class ChunkPayload {

  static final String TENANT_ID = "tenant_id";
  static final String DOCUMENT_ID = "document_id";
  static final String LATEST = "latest_version";

  private static final ObjectMapper TREES = new ObjectMapper();

  private ChunkPayload() {}

  static Map<String, Value> of(KnowledgeChunk chunk) {
    try {
      JsonNode json = TREES.readTree(ChunkJson.write(chunk));
      Map<String, Value> payload = new LinkedHashMap<>();
      json.properties().forEach(field -> payload.put(field.getKey(), toValue(field.getValue())));
      return payload;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The chunk in a payload; keys that are not chunk fields are ignored. */
  static KnowledgeChunk chunk(Map<String, Value> payload) {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    payload.forEach((key, value) -> json.set(key, toJson(value)));
    try {
      return ChunkJson.read(TREES.writeValueAsBytes(json));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Value toValue(JsonNode node) {
    return switch (node.getNodeType()) {
      case STRING -> value(node.asText());
      case BOOLEAN -> value(node.asBoolean());
      case NUMBER -> node.isIntegralNumber() ? value(node.asLong()) : value(node.asDouble());
      case ARRAY -> {
        List<Value> values = new ArrayList<>();
        node.forEach(element -> values.add(toValue(element)));
        yield list(values);
      }
      case OBJECT -> {
        Map<String, Value> fields = new LinkedHashMap<>();
        node.properties().forEach(field -> fields.put(field.getKey(), toValue(field.getValue())));
        yield value(fields);
      }
      default -> nullValue();
    };
  }

  private static JsonNode toJson(Value value) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    return switch (value.getKindCase()) {
      case STRING_VALUE -> nodes.textNode(value.getStringValue());
      case BOOL_VALUE -> nodes.booleanNode(value.getBoolValue());
      case INTEGER_VALUE -> nodes.numberNode(value.getIntegerValue());
      case DOUBLE_VALUE -> nodes.numberNode(value.getDoubleValue());
      case LIST_VALUE -> {
        ArrayNode array = nodes.arrayNode();
        value.getListValue().getValuesList().forEach(element -> array.add(toJson(element)));
        yield array;
      }
      case STRUCT_VALUE -> {
        ObjectNode object = nodes.objectNode();
        value.getStructValue().getFieldsMap().forEach((key, field) -> object.set(key, toJson(field)));
        yield object;
      }
      case NULL_VALUE, KIND_NOT_SET -> nodes.nullNode();
    };
  }
}
