package dev.colloquy.mockllm;

/**
 * How a request for one of {@link MockLlmSettings#failingModels()} fails, and what the official
 * openai-java client (4.x) throws for it.
 */
public enum FailureMode {
  /**
   * 500 with an OpenAI error body before any token. openai-java retries 5xx up to its {@code
   * maxRetries} with exponential backoff (0.5 s, 1 s, ...), then throws {@code
   * InternalServerException}.
   */
  HTTP_500,

  /**
   * 429 with {@code Retry-After: 0} before any token. openai-java retries at once up to its {@code
   * maxRetries}, then throws {@code RateLimitException}.
   */
  HTTP_429,

  /**
   * Streams {@code failAfterTokens} tokens, then an SSE error event ({@code data: {"error":...}}),
   * then ends the response without {@code [DONE]}. openai-java throws {@code SseException} from the
   * stream iterator after those tokens. A non-streaming request or an embedding request gets a 500
   * instead.
   */
  MID_STREAM,

  /**
   * Streams {@code failAfterTokens} tokens, then, 100 ms later, aborts the connection with no error
   * event and no {@code [DONE]}, as a dropped link would. openai-java throws {@code
   * OpenAIIoException} from the stream iterator after those tokens. A non-streaming request or an
   * embedding request gets a 500 instead.
   */
  MID_STREAM_DISCONNECT;

  boolean cutsStream() {
    return this == MID_STREAM || this == MID_STREAM_DISCONNECT;
  }
}
