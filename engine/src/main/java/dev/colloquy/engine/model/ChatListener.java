package dev.colloquy.engine.model;

import java.util.List;

/**
 * Receives one run's stream. Called from the model's own thread: implementations do no more than
 * append a token where its readers find it, or hand the call to an actor. Exactly one of
 * {@code onComplete} or {@code onError} ends a stream that was not cancelled, after its last token.
 */
public interface ChatListener {

  void onToken(String text);

  /**
   * The answer asks for tools (after whatever text it streamed): called once, just before
   * {@code onComplete}. A listener of a request that offers no tools may ignore it.
   */
  default void onToolCalls(List<ToolCall> calls) {}

  void onComplete(TokenUsage usage);

  void onError(ModelException error);
}
