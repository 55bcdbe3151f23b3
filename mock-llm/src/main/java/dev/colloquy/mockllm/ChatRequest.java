package dev.colloquy.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * The parts of an OpenAI chat completion request the mock acts on; unknown fields are ignored.
 *
 * @param promptTokens words (see {@link Words}) in the text of all messages' {@code content}: a
 *     string, or the {@code text} of each part of an array; roles and other fields don't count
 * @param maxTokens {@code max_completion_tokens}, else the older {@code max_tokens}
 * @param toolCalls the tool calls the answer makes instead of text (see {@link ToolCues}); none
 *     for a normal answer
 * @param scriptedJson the structured answer a {@link JsonCues} cue scripts; empty for the usual answer
 */
record ChatRequest(
    String model,
    int promptTokens,
    boolean stream,
    boolean includeUsage,
    Optional<Integer> maxTokens,
    ScriptOverrides overrides,
    List<ToolCues.Call> toolCalls,
    Optional<String> scriptedJson) {

  static ChatRequest parse(JsonNode root) {
    return new ChatRequest(
        Json.requiredText(root, "model"),
        promptTokens(messages(root)),
        root.path("stream").asBoolean(false),
        root.path("stream_options").path("include_usage").asBoolean(false),
        Json.optionalPositiveInt(root, "max_completion_tokens")
            .or(() -> Json.optionalPositiveInt(root, "max_tokens")),
        metadataOverrides(root.path("metadata")),
        ToolCues.of(root),
        JsonCues.of(root));
  }

  ChatRequest withOverrides(ScriptOverrides preferred) {
    return new ChatRequest(
        model, promptTokens, stream, includeUsage, maxTokens, preferred.orElse(overrides), toolCalls,
        scriptedJson);
  }

  private static JsonNode messages(JsonNode root) {
    JsonNode messages = root.get("messages");
    if (messages == null || messages.isNull()) {
      throw InvalidRequest.missing("messages");
    }
    if (!messages.isArray() || messages.isEmpty()) {
      throw InvalidRequest.invalid("messages", "'messages' must be a non-empty array.");
    }
    for (JsonNode message : messages) {
      if (!message.isObject()) {
        throw InvalidRequest.invalid("messages", "Each message must be an object.");
      }
    }
    return messages;
  }

  private static int promptTokens(JsonNode messages) {
    int words = 0;
    for (JsonNode message : messages) {
      words += contentWords(message.path("content"));
    }
    return words;
  }

  private static int contentWords(JsonNode content) {
    if (content.isTextual()) {
      return Words.count(content.asText());
    }
    int words = 0;
    for (JsonNode part : content) {
      words += Words.count(part.path("text").asText(""));
    }
    return words;
  }

  private static ScriptOverrides metadataOverrides(JsonNode metadata) {
    return ScriptOverrides.of(
        text(metadata, "mock_tokens"),
        text(metadata, "mock_ttft_ms"),
        text(metadata, "mock_delay_ms"));
  }

  private static Optional<String> text(JsonNode metadata, String key) {
    JsonNode value = metadata.get(key);
    return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
  }
}
