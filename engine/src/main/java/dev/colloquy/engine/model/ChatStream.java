package dev.colloquy.engine.model;

/** A running model call. Cancelling closes the upstream connection; it is idempotent. */
public interface ChatStream {

  void cancel();
}
