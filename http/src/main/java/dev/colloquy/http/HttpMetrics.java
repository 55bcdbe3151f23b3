package dev.colloquy.http;

import java.time.Duration;

/** What the HTTP layer reports: turn streams served and error responses. Defaults do nothing. */
public interface HttpMetrics {

  HttpMetrics NONE = new HttpMetrics() {};

  default void streamOpened() {}

  default void streamClosed() {}

  /** From the request to the first frame of its stream. */
  default void firstFrame(Duration latency) {}

  /** From the request to the first token frame of its stream. */
  default void firstToken(Duration latency) {}

  /** A non-2xx response with its error code. */
  default void errorResponse(int status, String code) {}
}
