package dev.colloquy.mockllm;

import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/** Errors in OpenAI's shape, {@code {"error":{"message","type","param","code"}}}. */
final class OpenAiErrors {
  record ErrorResponse(ErrorBody error) {}

  record ErrorBody(String message, String type, String param, String code) {}

  private OpenAiErrors() {}

  static HttpResponse badRequest(InvalidRequest invalid) {
    return response(
        StatusCodes.BAD_REQUEST,
        new ErrorBody(
            invalid.getMessage(), "invalid_request_error", invalid.param(), invalid.code()));
  }

  /** Retry-After 0 lets a retrying client succeed at once instead of backing off for seconds. */
  static HttpResponse rateLimited(String message) {
    return response(
            StatusCodes.TOO_MANY_REQUESTS,
            new ErrorBody(message, "requests", null, "rate_limit_exceeded"))
        .addHeader(RawHeader.create("Retry-After", "0"));
  }

  static HttpResponse serverError(String message) {
    return response(
        StatusCodes.INTERNAL_SERVER_ERROR,
        new ErrorBody(message, "server_error", null, "mock_failure"));
  }

  /** The payload of the SSE error event of {@link FailureMode#MID_STREAM}. */
  static String midStreamEvent(String model) {
    return Json.write(
        new ErrorResponse(
            new ErrorBody(
                "mock-llm: injected mid-stream failure of model '" + model + "'",
                "server_error",
                null,
                "mock_failure")));
  }

  private static HttpResponse response(StatusCode status, ErrorBody error) {
    return HttpResponse.create()
        .withStatus(status)
        .withEntity(ContentTypes.APPLICATION_JSON, Json.write(new ErrorResponse(error)));
  }
}
