package dev.colloquy.mockllm;

/** Fails a response stream on purpose, which makes pekko-http abort the connection. */
final class MidStreamFailure extends RuntimeException {
  MidStreamFailure(FailureMode mode, String model) {
    // Pekko-http logs this when it aborts the connection; the message says the failure was asked
    // for, and a stack trace would only add noise.
    super("mock-llm: injected " + mode + " failure of model '" + model + "'", null, false, false);
  }
}
