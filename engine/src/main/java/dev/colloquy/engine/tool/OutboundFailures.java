package dev.colloquy.engine.tool;

import dev.colloquy.engine.agent.EgressGuard;
import dev.colloquy.engine.agent.GuardedHttp;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletionException;

/**
 * What the model is told when a tool's outbound call fails: a stable code and a message naming the
 * kind of failure, never the upstream's words (they could carry anything).
 */
final class OutboundFailures {

  private OutboundFailures() {}

  /** {@code what} names the upstream in the message, e.g. "The data webhook". */
  static ToolFailure of(Throwable failure, String what, Duration timeout) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof java.io.UncheckedIOException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return switch (cause) {
      case ToolFailure known -> known;
      case EgressGuard.Refused refused -> new ToolFailure("refused",
          what + " is at an address the server may not call (loopback, private or link-local, not allowed by its operator)");
      case HttpTimeoutException timedOut -> new ToolFailure("timed_out",
          what + " did not answer within " + timeout.toMillis() + " ms");
      case GuardedHttp.TooLarge tooLarge -> new ToolFailure("too_large", what + "'s answer is too large: " + tooLarge.getMessage());
      default -> new ToolFailure("unreachable", what + " could not be reached");
    };
  }

  /** A non-2xx answer. */
  static ToolFailure status(int status, String what) {
    return new ToolFailure("upstream_failed", what + " answered HTTP " + status);
  }
}
