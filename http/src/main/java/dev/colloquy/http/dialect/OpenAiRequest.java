package dev.colloquy.http.dialect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.http.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code POST /v1/chat/completions} body as the session API takes it: the model, the last message
 * (a user's) as the turn, and what came before it (system and developer messages as the persona, user
 * and assistant messages as the conversation a new session starts from). Parameters Colloquy does not
 * act on ({@code temperature}, {@code max_tokens}, …) are accepted and left alone; those whose effect a
 * client would miss ({@code n} above 1, tools) are refused.
 */
record OpenAiRequest(String model, String message, String persona, List<ChatMessage> context, boolean stream,
    boolean includeUsage) {

  static final int MAX_MESSAGES = 200;

  /**
   * What the messages before the last may add up to (UTF-8), and the system and developer messages
   * together (characters, as a persona of the session API). A session is opened with them in one
   * message that may cross to another node, and keeps them in its state: both must stay bounded.
   */
  static final int MAX_CONTEXT_BYTES = 128 * 1024;
  static final int MAX_SYSTEM_CHARACTERS = 8_000;

  static OpenAiRequest parse(String body, long maxMessageBytes) {
    JsonNode json = object(body);
    String model = requiredText(json, "model");
    JsonNode messages = json.path("messages");
    if (messages.isMissingNode() || messages.isNull()) {
      throw OpenAiError.invalid("missing_required_parameter", "messages", "Missing required parameter: 'messages'.");
    }
    if (!messages.isArray() || messages.isEmpty()) {
      throw OpenAiError.invalid("invalid_type", "messages", "Invalid 'messages': expected a non-empty array of messages.");
    }
    if (messages.size() > MAX_MESSAGES) {
      throw OpenAiError.invalid("invalid_value", "messages",
          "Invalid 'messages': at most " + MAX_MESSAGES + " messages, got " + messages.size() + ".");
    }
    refuseUnsupported(json);
    List<String> system = new ArrayList<>();
    List<ChatMessage> conversation = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      String param = "messages[" + i + "]";
      JsonNode message = messages.get(i);
      if (!message.isObject()) {
        throw OpenAiError.invalid("invalid_type", param, "Invalid '" + param + "': expected an object.");
      }
      String role = requiredText(message, "role", param + ".role");
      String content = content(message.path("content"), param + ".content", maxMessageBytes);
      switch (role) {
        case "system", "developer" -> system.add(content);
        case "user" -> conversation.add(ChatMessage.user(content));
        case "assistant" -> conversation.add(ChatMessage.assistant(content));
        default -> throw OpenAiError.invalid("unsupported_value", param + ".role", "Invalid '" + param
            + ".role': '" + role + "' is not supported; use system, developer, user or assistant.");
      }
    }
    if (conversation.isEmpty() || conversation.getLast().role() != ChatMessage.Role.USER) {
      throw OpenAiError.invalid("invalid_value", "messages",
          "Invalid 'messages': the last message that is not a system message must be a user's.");
    }
    long contextBytes = conversation.subList(0, conversation.size() - 1).stream()
        .mapToLong(earlier -> earlier.content().getBytes(StandardCharsets.UTF_8).length).sum();
    if (contextBytes > MAX_CONTEXT_BYTES) {
      throw OpenAiError.invalid("context_length_exceeded", "messages", "The messages before the last user message are "
          + contextBytes + " bytes; they may total at most " + MAX_CONTEXT_BYTES + ".");
    }
    int systemCharacters = system.stream().mapToInt(String::length).sum();
    if (systemCharacters > MAX_SYSTEM_CHARACTERS) {
      throw OpenAiError.invalid("context_length_exceeded", "messages", "The system and developer messages are "
          + systemCharacters + " characters; they may total at most " + MAX_SYSTEM_CHARACTERS + ".");
    }
    if (conversation.getLast().content().isBlank()) {
      throw OpenAiError.invalid("invalid_value", "messages[" + (messages.size() - 1) + "].content",
          "The last user message must not be empty.");
    }
    return new OpenAiRequest(model, conversation.getLast().content(), system.isEmpty() ? null : String.join("\n\n", system),
        conversation.subList(0, conversation.size() - 1), bool(json, "stream"),
        json.path("stream_options").isObject() && bool(json.path("stream_options"), "include_usage"));
  }

  private static JsonNode object(String body) {
    try {
      JsonNode json = body.isBlank() ? null : Json.MAPPER.readTree(body);
      if (json == null || !json.isObject()) {
        throw OpenAiError.invalid("invalid_json", null, "The request body must be a JSON object.");
      }
      return json;
    } catch (JsonProcessingException e) {
      throw OpenAiError.invalid("invalid_json", null,
          "We could not parse the JSON body of your request: " + e.getOriginalMessage());
    }
  }

  private static void refuseUnsupported(JsonNode json) {
    JsonNode n = json.path("n");
    if (!n.isMissingNode() && !n.isNull() && !(n.canConvertToInt() && n.asInt() == 1)) {
      throw OpenAiError.invalid("unsupported_value", "n", "Only n = 1 is supported.");
    }
    for (String field : List.of("tools", "functions")) {
      JsonNode value = json.path(field);
      if (value.isArray() && !value.isEmpty()) {
        throw OpenAiError.invalid("unsupported_parameter", field, "'" + field + "' is not supported by this endpoint.");
      }
    }
  }

  /** A string, or an array of text parts as the SDKs send them. */
  private static String content(JsonNode content, String param, long maxBytes) {
    String text;
    if (content.isTextual()) {
      text = content.asText();
    } else if (content.isArray()) {
      StringBuilder joined = new StringBuilder();
      for (JsonNode part : content) {
        if (!part.path("type").asText().equals("text") || !part.path("text").isTextual()) {
          throw OpenAiError.invalid("unsupported_value", param, "Invalid '" + param + "': only text parts are supported.");
        }
        joined.append(part.path("text").asText());
      }
      text = joined.toString();
    } else if (content.isMissingNode() || content.isNull()) {
      throw OpenAiError.invalid("missing_required_parameter", param, "Missing required parameter: '" + param + "'.");
    } else {
      throw OpenAiError.invalid("invalid_type", param,
          "Invalid type for '" + param + "': expected a string or an array of text parts.");
    }
    long bytes = text.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxBytes) {
      throw OpenAiError.invalid("message_too_large", param,
          "'" + param + "' is " + bytes + " bytes; the limit is " + maxBytes + ".");
    }
    return text;
  }

  private static String requiredText(JsonNode json, String field) {
    return requiredText(json, field, field);
  }

  private static String requiredText(JsonNode json, String field, String param) {
    JsonNode value = json.path(field);
    if (value.isMissingNode() || value.isNull()) {
      throw OpenAiError.invalid("missing_required_parameter", param, "Missing required parameter: '" + param + "'.");
    }
    if (!value.isTextual() || value.asText().isBlank()) {
      throw OpenAiError.invalid("invalid_type", param, "Invalid type for '" + param + "': expected a non-empty string.");
    }
    return value.asText();
  }

  private static boolean bool(JsonNode json, String field) {
    JsonNode value = json.path(field);
    if (value.isMissingNode() || value.isNull()) {
      return false;
    }
    if (!value.isBoolean()) {
      throw OpenAiError.invalid("invalid_type", field, "Invalid type for '" + field + "': expected a boolean.");
    }
    return value.asBoolean();
  }
}
