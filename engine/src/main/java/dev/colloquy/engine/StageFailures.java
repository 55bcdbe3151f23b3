package dev.colloquy.engine;

import java.util.concurrent.CompletionException;

/** The failures of {@link java.util.concurrent.CompletionStage}s, as the code that raised them raised them. */
public final class StageFailures {

  private StageFailures() {}

  /**
   * {@code failure} without the {@link CompletionException} a dependent stage wraps it in, so that what
   * is logged or answered names the real cause (a timeout, a model's error).
   */
  public static Throwable cause(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
  }
}
