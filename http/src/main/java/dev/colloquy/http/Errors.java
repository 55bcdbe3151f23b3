package dev.colloquy.http;

import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import java.util.List;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.MalformedRequestContentRejection;
import org.apache.pekko.http.javadsl.server.MethodRejection;
import org.apache.pekko.http.javadsl.server.MissingFormFieldRejection;
import org.apache.pekko.http.javadsl.server.Rejection;
import org.apache.pekko.http.javadsl.server.RejectionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.server.UnsupportedRequestContentTypeRejection;
import org.apache.pekko.http.javadsl.model.headers.Connection;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping of failures to the error body of API.md: refusals ({@link ApiException}), the
 * engine's refusals, rejections of the routing tree and anything unexpected. No stack trace ever
 * reaches a client.
 */
public final class Errors extends AllDirectives {

  private static final Logger log = LoggerFactory.getLogger(Errors.class);

  /** Seconds a client refused with 429 is told to wait before it tries again. */
  static final String RETRY_AFTER_SECONDS = "1";
  /** Seconds a client refused with 503 (journal down, node shutting down) is told to wait. */
  static final String UNAVAILABLE_RETRY_AFTER_SECONDS = "5";

  record ErrorBody(Detail error) {}

  record Detail(String code, String message, String traceId) {}

  private final TraceIds traceIds;
  private final boolean logContent;

  Errors(TraceIds traceIds, boolean logContent) {
    this.traceIds = traceIds;
    this.logContent = logContent;
  }

  public static HttpResponse response(StatusCode status, String code, String message, String traceId) {
    HttpResponse response = Json.response(status, new ErrorBody(new Detail(code, message, traceId)));
    if (status.equals(StatusCodes.TOO_MANY_REQUESTS)) {
      return response.addHeader(RawHeader.create("Retry-After", RETRY_AFTER_SECONDS));
    }
    if (status.equals(StatusCodes.SERVICE_UNAVAILABLE)) {
      return response.addHeader(RawHeader.create("Retry-After", UNAVAILABLE_RETRY_AFTER_SECONDS));
    }
    return response;
  }

  /**
   * The answer to a request still waiting when its node has stopped waiting for it (503, with
   * {@code Retry-After}): another node, or this one restarted, will take it.
   */
  public static HttpResponse nodeStopped() {
    return response(ErrorCode.SHUTTING_DOWN, "This node stopped before it could answer; try again in a moment",
        TraceIds.newTraceId());
  }

  static HttpResponse response(ErrorCode code, String message, String traceId) {
    return response(StatusCodes.get(code.httpStatus()), code.name(), message, traceId);
  }

  /** An engine refusal as the API answers it; a code this node does not know is a server error. */
  static ApiException refused(ChatSession.Rejected rejected) {
    return ErrorCode.find(rejected.code())
        .map(code -> new ApiException(code, rejected.message()))
        .orElseGet(() -> new ApiException(StatusCodes.INTERNAL_SERVER_ERROR, rejected.code(), rejected.message()));
  }

  /** Wraps the routes so that every failure below answers with the error body. */
  Route handle(Route inner) {
    return handleExceptions(exceptions(), () -> handleRejections(rejections(), () -> inner));
  }

  private ExceptionHandler exceptions() {
    return ExceptionHandler.newBuilder()
        .matchAny(error -> traceIds.traceId(traceId -> complete(failed(error, traceId))))
        .build();
  }

  private HttpResponse failed(Throwable error, String traceId) {
    Throwable cause = StageFailures.cause(error);
    if (cause instanceof ApiException api) {
      HttpResponse refused = response(api.status(), api.code(), api.getMessage(), traceId);
      // A body read in part: what remains of it cannot be told from a next request.
      return api.code().equals(ErrorCode.REQUEST_TIMEOUT.name()) ? refused.addHeader(Connection.create("close")) : refused;
    }
    if (cause instanceof EntityStreamSizeException tooLarge) {
      return tooLarge(tooLarge, traceId);
    }
    if (logContent) {
      log.error("Request failed (trace {})", traceId, cause);
    } else {
      // An unexpected failure's message may quote what the client sent.
      log.error("Request failed (trace {}): {}", traceId, cause.getClass().getName());
    }
    return response(ErrorCode.INTERNAL_ERROR, "The server could not complete the request", traceId);
  }

  private static HttpResponse tooLarge(EntityStreamSizeException e, String traceId) {
    return response(ErrorCode.REQUEST_TOO_LARGE,
        "The request body is larger than the limit of " + e.limit() + " bytes", traceId);
  }

  private RejectionHandler rejections() {
    return RejectionHandler.newBuilder()
        .handleAll(MethodRejection.class, rejected -> error(traceId -> response(ErrorCode.METHOD_NOT_ALLOWED,
            "Method not allowed here; use " + rejected.get(0).supported().value(), traceId)))
        .handle(MissingFormFieldRejection.class, rejected -> error(traceId -> response(ErrorCode.FIELD_REQUIRED,
            "The multipart form field '" + rejected.fieldName() + "' is required", traceId)))
        .handleAll(UnsupportedRequestContentTypeRejection.class, rejected -> error(traceId -> response(
            ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Unsupported Content-Type; expected " + rejected.get(0).getSupported(),
            traceId)))
        .handle(MalformedRequestContentRejection.class, rejected -> error(traceId ->
            rejected.getCause() instanceof EntityStreamSizeException tooLarge
                ? tooLarge(tooLarge, traceId)
                : response(ErrorCode.MALFORMED_REQUEST, rejected.message(), traceId)))
        .handleNotFound(error(traceId -> response(ErrorCode.NOT_FOUND, "No such endpoint", traceId)))
        .handleAll(Rejection.class, this::byDefault)
        .build();
  }

  /** Any other rejection as Pekko answers it, with its status and text moved into the error body. */
  private Route byDefault(List<Rejection> rejected) {
    Rejection[] rest = rejected.subList(1, rejected.size()).toArray(Rejection[]::new);
    return traceIds.traceId(traceId -> mapResponse(response -> errorBody(response, traceId),
        () -> handleRejections(RejectionHandler.defaultHandler(), () -> reject(rejected.get(0), rest))));
  }

  private static HttpResponse errorBody(HttpResponse response, String traceId) {
    if (response.entity().getContentType().equals(ContentTypes.APPLICATION_JSON)) {
      return response;
    }
    String message = response.entity() instanceof HttpEntity.Strict strict
        ? strict.getData().utf8String() : "The request was rejected";
    return response(response.status(), ErrorCode.BAD_REQUEST.name(), message, traceId);
  }

  private Route error(java.util.function.Function<String, HttpResponse> response) {
    return traceIds.traceId(traceId -> complete(response.apply(traceId)));
  }
}
