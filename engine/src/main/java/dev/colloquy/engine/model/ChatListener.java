package dev.colloquy.engine.model;

/**
 * Receives one run's stream. Called from the model's own thread: implementations hand the calls to
 * an actor and do no work of their own. Exactly one of {@code onComplete} or {@code onError} ends a
 * stream that was not cancelled.
 */
public interface ChatListener {

  void onToken(String text);

  void onComplete(TokenUsage usage);

  void onError(ModelException error);
}
