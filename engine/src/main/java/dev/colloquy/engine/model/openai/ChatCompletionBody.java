package dev.colloquy.engine.model.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ResponseSchema;
import dev.colloquy.engine.model.ToolCall;
import dev.colloquy.engine.model.ToolExchange;
import dev.colloquy.engine.model.ToolSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The body of a streamed OpenAI chat completions request, written once per call with Jackson's
 * streaming generator: the same bytes openai-java's own serializer writes for the same request (its
 * fields in its order), without building its params objects, validating them and serializing them
 * through its Kotlin-reflecting mapper, which the profiles showed as a good part of a turn's CPU.
 * The schemas of tools and of a structured answer are written as the trees they already are.
 */
final class ChatCompletionBody {

  /**
   * Plain Jackson: thread-safe once configured, and only its generator and tree writing are used. Its
   * generators' buffers come from a pool shared by the calls' virtual threads rather than one per
   * thread, since each call writes its body on a thread of its own (see {@link CompletionChunks}).
   */
  private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
      .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
      .build());

  private ChatCompletionBody() {}

  static byte[] of(ChatRequest request) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeArrayFieldStart("messages");
      for (ChatMessage message : request.messages()) {
        message(json, message);
      }
      for (ToolExchange exchange : request.exchanges()) {
        exchange(json, exchange);
      }
      json.writeEndArray();
      json.writeStringField("model", request.model());
      json.writeNumberField("max_tokens", request.maxTokens());
      if (request.responseSchema() != null) {
        responseFormat(json, request.responseSchema());
      }
      json.writeObjectFieldStart("stream_options");
      json.writeBooleanField("include_usage", true);
      json.writeEndObject();
      if (!request.tools().isEmpty()) {
        json.writeArrayFieldStart("tools");
        for (ToolSpec tool : request.tools()) {
          tool(json, tool);
        }
        json.writeEndArray();
      }
      json.writeBooleanField("stream", true);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("Writing a request body to memory failed", e);
    }
    return out.toByteArray();
  }

  /** openai-java writes an assistant message's role first, the others' last. */
  private static void message(JsonGenerator json, ChatMessage message) throws IOException {
    json.writeStartObject();
    switch (message.role()) {
      case SYSTEM -> {
        json.writeStringField("content", message.content());
        json.writeStringField("role", "system");
      }
      case USER -> {
        json.writeStringField("content", message.content());
        json.writeStringField("role", "user");
      }
      case ASSISTANT -> {
        json.writeStringField("role", "assistant");
        json.writeStringField("content", message.content());
      }
    }
    json.writeEndObject();
  }

  /** The assistant's message with its {@code tool_calls}, then one {@code tool} message per result. */
  private static void exchange(JsonGenerator json, ToolExchange exchange) throws IOException {
    json.writeStartObject();
    json.writeStringField("role", "assistant");
    if (!exchange.text().isEmpty()) {
      json.writeStringField("content", exchange.text());
    }
    if (!exchange.calls().isEmpty()) {
      json.writeArrayFieldStart("tool_calls");
      for (ToolCall call : exchange.calls()) {
        json.writeStartObject();
        json.writeStringField("id", call.id());
        json.writeObjectFieldStart("function");
        json.writeStringField("arguments", call.arguments());
        json.writeStringField("name", call.name());
        json.writeEndObject();
        json.writeStringField("type", "function");
        json.writeEndObject();
      }
      json.writeEndArray();
    }
    json.writeEndObject();
    for (ToolExchange.Result result : exchange.results()) {
      json.writeStartObject();
      json.writeStringField("content", result.content());
      json.writeStringField("role", "tool");
      json.writeStringField("tool_call_id", result.callId());
      json.writeEndObject();
    }
  }

  private static void responseFormat(JsonGenerator json, ResponseSchema schema) throws IOException {
    json.writeObjectFieldStart("response_format");
    json.writeObjectFieldStart("json_schema");
    json.writeStringField("name", schema.name());
    json.writeFieldName("schema");
    fields(json, schema.schema());
    json.writeBooleanField("strict", true);
    json.writeEndObject();
    json.writeStringField("type", "json_schema");
    json.writeEndObject();
  }

  private static void tool(JsonGenerator json, ToolSpec tool) throws IOException {
    json.writeStartObject();
    json.writeObjectFieldStart("function");
    json.writeStringField("name", tool.name());
    json.writeStringField("description", tool.description());
    json.writeFieldName("parameters");
    fields(json, tool.parameters());
    json.writeEndObject();
    json.writeStringField("type", "function");
    json.writeEndObject();
  }

  /** A schema object field by field, as openai-java sends the additional properties it was given. */
  private static void fields(JsonGenerator json, JsonNode schema) throws IOException {
    json.writeStartObject();
    for (Map.Entry<String, JsonNode> field : schema.properties()) {
      json.writeFieldName(field.getKey());
      json.writeTree(field.getValue());
    }
    json.writeEndObject();
  }
}
