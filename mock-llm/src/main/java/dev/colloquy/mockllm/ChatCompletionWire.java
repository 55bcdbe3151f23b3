package dev.colloquy.mockllm;

import com.fasterxml.jackson.annotation.JsonInclude;
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
  record Delta(String role, String content) {}

  record Completion(
      String id, String object, long created, String model, List<Choice> choices, Usage usage) {}

  record Choice(int index, Message message, String finishReason) {}

  record Message(String role, String content) {}

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

  static String finishChunk(ChatScript script) {
    Delta delta = new Delta(script.tokens() == 0 ? "assistant" : null, null);
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
        List.of(new Choice(0, new Message("assistant", script.text()), script.finishReason())),
        Usage.of(script.promptTokens(), script.tokens()));
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
