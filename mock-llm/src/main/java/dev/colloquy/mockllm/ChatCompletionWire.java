package dev.colloquy.mockllm;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;

/** OpenAI's chat completion shapes: the streamed chunks and the whole completion. */
final class ChatCompletionWire {
  static final String DONE = "[DONE]";

  record Chunk(
      String id,
      String object,
      long created,
      String model,
      List<ChunkChoice> choices,
      @JsonInclude(JsonInclude.Include.NON_NULL) Usage usage) {}

  /** {@code finish_reason} stays in the JSON as null until the last chunk, as OpenAI sends it. */
  record ChunkChoice(int index, Delta delta, String finishReason) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Delta(String role, String content, List<ToolCallDelta> toolCalls) {
    Delta(String role, String content) {
      this(role, content, null);
    }
  }

  /** A piece of a streamed tool call: the first names its id and function, later ones add arguments. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record ToolCallDelta(int index, String id, String type, Function function) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Function(String name, String arguments) {}

  record ToolCall(String id, String type, Function function) {}

  record Completion(
      String id, String object, long created, String model, List<Choice> choices, Usage usage) {}

  record Choice(int index, Message message, String finishReason) {}

  /** A message whose content is null when it calls tools, as OpenAI sends it. */
  record Message(String role, String content, @JsonInclude(JsonInclude.Include.NON_NULL) List<ToolCall> toolCalls) {}

  record Usage(int promptTokens, int completionTokens, int totalTokens) {
    static Usage of(int promptTokens, int completionTokens) {
      return new Usage(promptTokens, completionTokens, promptTokens + completionTokens);
    }
  }

  private ChatCompletionWire() {}

  /** The role rides on the first token only, like OpenAI's first delta. */
  static String tokenChunk(ChatScript script, int index) {
    Delta delta = new Delta(index == 0 ? "assistant" : null, script.token(index));
    return chunk(script, List.of(new ChunkChoice(0, delta, null)), null);
  }

  /**
   * The chunks of the answer's tool calls: per call, one naming it, then its arguments in two
   * pieces, as OpenAI streams them, so a client must assemble them across chunks.
   */
  static List<String> toolCallChunks(ChatScript script) {
    List<String> chunks = new ArrayList<>();
    List<ToolCues.Call> calls = script.toolCalls();
    for (int i = 0; i < calls.size(); i++) {
      ToolCues.Call call = calls.get(i);
      String arguments = call.arguments();
      int half = arguments.length() / 2;
      chunks.add(toolChunk(script, new Delta(i == 0 ? "assistant" : null, null, List.of(
          new ToolCallDelta(i, script.callId(i), "function", new Function(call.name(), ""))))));
      chunks.add(toolChunk(script, new Delta(null, null, List.of(
          new ToolCallDelta(i, null, null, new Function(null, arguments.substring(0, half)))))));
      chunks.add(toolChunk(script, new Delta(null, null, List.of(
          new ToolCallDelta(i, null, null, new Function(null, arguments.substring(half)))))));
    }
    return chunks;
  }

  private static String toolChunk(ChatScript script, Delta delta) {
    return chunk(script, List.of(new ChunkChoice(0, delta, null)), null);
  }

  static String finishChunk(ChatScript script) {
    Delta delta = new Delta(script.tokens() == 0 && script.toolCalls().isEmpty() ? "assistant" : null, null);
    return chunk(script, List.of(new ChunkChoice(0, delta, script.finishReason())), null);
  }

  /** Sent when the request asked for {@code stream_options.include_usage}. */
  static String usageChunk(ChatScript script) {
    return chunk(script, List.of(), Usage.of(script.promptTokens(), script.tokens()));
  }

  static Completion completion(ChatScript script) {
    return new Completion(
        script.id(),
        "chat.completion",
        script.created(),
        script.model(),
        List.of(new Choice(0, message(script), script.finishReason())),
        Usage.of(script.promptTokens(), script.tokens()));
  }

  private static Message message(ChatScript script) {
    if (script.toolCalls().isEmpty()) {
      return new Message("assistant", script.text(), null);
    }
    List<ToolCall> calls = new ArrayList<>();
    for (int i = 0; i < script.toolCalls().size(); i++) {
      ToolCues.Call call = script.toolCalls().get(i);
      calls.add(new ToolCall(script.callId(i), "function", new Function(call.name(), call.arguments())));
    }
    return new Message("assistant", null, calls);
  }

  private static String chunk(ChatScript script, List<ChunkChoice> choices, Usage usage) {
    return Json.write(
        new Chunk(
            script.id(),
            "chat.completion.chunk",
            script.created(),
            script.model(),
            choices,
            usage));
  }
}
