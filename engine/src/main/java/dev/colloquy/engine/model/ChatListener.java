package dev.colloquy.engine.model;

/**
 * Receives one run's stream. Called from the model's own thread: implementations do no more than
 * append a token where its readers find it, or hand the call to an actor. Exactly one of
 * {@code onComplete} or {@code onError} ends a stream that was not cancelled, after its last token.
 */
public interface ChatListener {

  void onToken(String text);

  void onComplete(TokenUsage usage);

  void onError(ModelException error);
}
