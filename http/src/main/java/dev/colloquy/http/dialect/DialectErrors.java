package dev.colloquy.http.dialect;

import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.ApiException;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every failure below a dialect's routes, answered in that dialect's error shape: its own refusals, the
 * canonical API's ({@link ApiException}), and anything unexpected as a 500 that quotes nothing of the
 * request. The dialect gives only its shape, so no dialect can answer bad input in another's.
 */
final class DialectErrors extends AllDirectives {

  private static final Logger log = LoggerFactory.getLogger(DialectErrors.class);
  /** Seconds a client refused with 503 (journal down, node shutting down) is told to wait. */
  private static final long UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

  /** How a dialect words a refusal, with the request's trace id. */
  interface Shape {
    HttpResponse refused(DialectRefusal refusal, String traceId);
  }

  private final String dialect;
  private final Shape shape;

  /** {@code dialect}: the dialect's name as the log says it. */
  DialectErrors(String dialect, Shape shape) {
    this.dialect = dialect;
    this.shape = shape;
  }

  Route handle(String traceId, Supplier<Route> inner) {
    return handleExceptions(handler(traceId), inner);
  }

  private ExceptionHandler handler(String traceId) {
    return ExceptionHandler.newBuilder()
        .matchAny(error -> complete(shape.refused(refusal(error, traceId), traceId)))
        .build();
  }

  private DialectRefusal refusal(Throwable error, String traceId) {
    Throwable cause = StageFailures.cause(error);
    return switch (cause) {
      case DialectRefusal refusal -> refusal;
      case ApiException api -> new DialectRefusal(api.status(), api.code(), api.getMessage(),
          api.status().intValue() == 503 ? UNAVAILABLE_RETRY_AFTER_SECONDS : 0);
      default -> {
        // Only the class: an unexpected failure's message may quote what the client sent.
        log.error("{} request failed (trace {}): {}", dialect, traceId, cause.getClass().getName());
        yield new DialectRefusal(ErrorCode.INTERNAL_ERROR, "The server could not complete the request");
      }
    };
  }
}
