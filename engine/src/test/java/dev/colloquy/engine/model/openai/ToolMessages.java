package dev.colloquy.engine.model.openai;

import com.openai.core.JsonValue;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletionAssistantMessageParam;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionMessageFunctionToolCall;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ToolCall;
import dev.colloquy.engine.model.ToolExchange;
import dev.colloquy.engine.model.ToolSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tool-calling part of a request in openai-java's terms, as the model client built it before it
 * wrote its bodies itself: the {@code tools} offered, and after the conversation each earlier round,
 * the assistant message with its {@code tool_calls} and one {@code tool} message per result. The
 * reference {@link ChatCompletionBodyTest} compares the written body with.
 */
final class ToolMessages {

  private ToolMessages() {}

  static void add(ChatCompletionCreateParams.Builder params, ChatRequest request) {
    for (ToolSpec tool : request.tools()) {
      params.addFunctionTool(FunctionDefinition.builder()
          .name(tool.name())
          .description(tool.description())
          .parameters(FunctionParameters.builder().putAllAdditionalProperties(properties(tool)).build())
          .build());
    }
    for (ToolExchange exchange : request.exchanges()) {
      ChatCompletionAssistantMessageParam.Builder asked = ChatCompletionAssistantMessageParam.builder();
      if (!exchange.text().isEmpty()) {
        asked.content(exchange.text());
      }
      for (ToolCall call : exchange.calls()) {
        asked.addToolCall(ChatCompletionMessageFunctionToolCall.builder()
            .id(call.id())
            .function(ChatCompletionMessageFunctionToolCall.Function.builder()
                .name(call.name()).arguments(call.arguments()).build())
            .build());
      }
      params.addMessage(asked.build());
      for (ToolExchange.Result result : exchange.results()) {
        params.addMessage(ChatCompletionToolMessageParam.builder()
            .toolCallId(result.callId()).content(result.content()).build());
      }
    }
  }

  /** The tool's JSON Schema object, field by field, as openai-java takes a function's parameters. */
  private static Map<String, JsonValue> properties(ToolSpec tool) {
    Map<String, JsonValue> properties = new LinkedHashMap<>();
    tool.parameters().properties().forEach(field -> properties.put(field.getKey(), JsonValue.fromJsonNode(field.getValue())));
    return properties;
  }
}
