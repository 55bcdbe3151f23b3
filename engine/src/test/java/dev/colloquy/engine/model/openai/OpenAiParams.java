package dev.colloquy.engine.model.openai;

import com.openai.core.JsonValue;
import com.openai.core.ObjectMappers;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatRequest;

/**
 * A request as openai-java's typed params and the bytes its chat service sends for a streamed call:
 * the body serialized by openai-java's own mapper, with the {@code stream} flag its
 * {@code createStreaming} adds. The reference the hand-written body is held to.
 */
public final class OpenAiParams {

  private OpenAiParams() {}

  public static ChatCompletionCreateParams of(ChatRequest request) {
    ChatCompletionCreateParams.Builder params =
        ChatCompletionCreateParams.builder()
            .model(request.model())
            .maxTokens(request.maxTokens())
            .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build());
    for (ChatMessage message : request.messages()) {
      switch (message.role()) {
        case SYSTEM -> params.addSystemMessage(message.content());
        case USER -> params.addUserMessage(message.content());
        case ASSISTANT -> params.addAssistantMessage(message.content());
      }
    }
    if (!request.tools().isEmpty() || !request.exchanges().isEmpty()) {
      ToolMessages.add(params, request);
    }
    if (request.responseSchema() != null) {
      params.responseFormat(StructuredOutput.format(request.responseSchema()));
    }
    return params.build();
  }

  public static byte[] streamedBody(ChatRequest request) throws Exception {
    ChatCompletionCreateParams.Body body = of(request)._body().toBuilder()
        .putAdditionalProperty("stream", JsonValue.from(true))
        .build();
    return ObjectMappers.jsonMapper().writeValueAsBytes(body);
  }
}
