package dev.colloquy.http;

import org.apache.pekko.http.javadsl.model.StatusCode;

/** A request refused before any work was done: the status, the stable code and a message for people. */
final class ApiException extends RuntimeException {

  private final StatusCode status;
  private final String code;

  ApiException(StatusCode status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  StatusCode status() {
    return status;
  }

  String code() {
    return code;
  }
}
