package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.Errors;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * A request a dialect refuses, answered in the canonical error shape of API.md
 * ({@code {"error": {"code", "message", "trace_id"}}}) with a code in the dialect's own words where its
 * seed names things otherwise (a conversation, not a session).
 */
final class DialectRefusal extends RuntimeException {

  private final int status;
  private final String code;

  DialectRefusal(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  /** A code of the canonical API with its own status. */
  DialectRefusal(ErrorCode code, String message) {
    this(code.httpStatus(), code.name(), message);
  }

  HttpResponse response(String traceId) {
    return Errors.response(StatusCodes.get(status), code, getMessage(), traceId);
  }
}
