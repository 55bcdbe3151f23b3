package dev.colloquy.mockllm;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What one chat completion will send: its tokens, pace, finish reason and usage, or the mid-stream
 * failure that cuts it short.
 *
 * @param settings the server's settings with the request's overrides applied
 * @param tokens the tokens of a full answer, capped by the request's max tokens
 * @param failure the mid-stream failure to inject, if the model fails that way
 */
record ChatScript(
    String id,
    long created,
    ChatRequest request,
    MockLlmSettings settings,
    int tokens,
    Optional<FailureMode> failure) {

  static ChatScript plan(ChatRequest request, MockLlmSettings serverSettings, boolean failing) {
    MockLlmSettings settings = request.overrides().applyTo(serverSettings);
    // An answer that calls tools has no text.
    int tokens = !request.toolCalls().isEmpty() ? 0
        : request.scriptedJson().isPresent() ? JsonCues.pieces(request.scriptedJson().get()).size()
        : request.maxTokens().map(max -> Math.min(max, settings.tokens())).orElse(settings.tokens());
    Optional<FailureMode> failure =
        failing && settings.failureMode().cutsStream()
            ? Optional.of(settings.failureMode())
            : Optional.empty();
    return new ChatScript(
        "chatcmpl-mock-" + UUID.randomUUID(),
        Instant.now().getEpochSecond(),
        request,
        settings,
        tokens,
        failure);
  }

  String model() {
    return request.model();
  }

  /** The tokens actually sent: all of them, or those before the injected failure. */
  int tokensToSend() {
    return failure.isPresent() ? Math.min(settings.failAfterTokens(), tokens) : tokens;
  }

  String token(int index) {
    return request.scriptedJson().map(json -> JsonCues.pieces(json).get(index)).orElseGet(() -> settings.token(index));
  }

  String text() {
    return request.scriptedJson().orElseGet(() -> settings.text(tokens));
  }

  /** "length" when the request's max tokens cut the answer short, as OpenAI reports it; "tool_calls" for calls. */
  String finishReason() {
    if (!request.toolCalls().isEmpty()) {
      return "tool_calls";
    }
    return request.scriptedJson().isEmpty() && tokens < settings.tokens() ? "length" : "stop";
  }

  /** The answer's tool calls, each with an id of its own. */
  List<ToolCues.Call> toolCalls() {
    return request.toolCalls();
  }

  /** The id of call {@code index}: unique per completion, as OpenAI's are. */
  String callId(int index) {
    return "call_" + id.substring(id.length() - 8) + "_" + index;
  }

  int promptTokens() {
    return request.promptTokens();
  }

  /** How long a non-streaming answer takes: as long as streaming it would. */
  Duration generationTime() {
    return settings
        .timeToFirstToken()
        .plus(settings.interTokenDelay().multipliedBy(Math.max(0, tokens - 1)));
  }
}
