package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * A request a dialect refuses, before its stream opens: the HTTP status, the stable code of API.md and
 * a message for people. Each dialect renders it in its own error shape and may rename the code, as
 * its seed does.
 */
final class DialectRefusal extends RuntimeException {

  private final StatusCode status;
  private final String code;
  private final long retryAfterSeconds;

  DialectRefusal(ErrorCode code, String message) {
    this(StatusCodes.get(code.httpStatus()), code.name(), message);
  }

  DialectRefusal(StatusCode status, String code, String message) {
    this(status, code, message, 0);
  }

  /** A refusal the client may try again after {@code retryAfterSeconds} (429, 503). */
  DialectRefusal(StatusCode status, String code, String message, long retryAfterSeconds) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The engine's refusal with the status API.md gives its code; a code this node does not know is a server error. */
  static DialectRefusal of(ChatSession.Rejected rejected) {
    return ErrorCode.find(rejected.code())
        .map(code -> new DialectRefusal(code, rejected.message()))
        .orElseGet(() -> new DialectRefusal(StatusCodes.INTERNAL_SERVER_ERROR, rejected.code(), rejected.message()));
  }

  StatusCode status() {
    return status;
  }

  String code() {
    return code;
  }

  /** Seconds to wait before trying again, or 0 when the answer is no answer to wait for. */
  long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
