package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * A request refused before any work was done: the status, the stable code and a message for people.
 * Thrown anywhere inside {@link ApiRoutes}, it is answered with the error body.
 */
public final class ApiException extends RuntimeException {

  private final StatusCode status;
  private final String code;

  public ApiException(ErrorCode code, String message) {
    this(StatusCodes.get(code.httpStatus()), code.name(), message);
  }

  /** A code answered with another status than its own, or a code the engine sent that this node does not know. */
  public ApiException(StatusCode status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  public StatusCode status() {
    return status;
  }

  public String code() {
    return code;
  }
}
