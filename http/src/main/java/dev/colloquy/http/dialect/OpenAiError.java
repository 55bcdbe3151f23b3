package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.Json;
import java.util.Locale;
import java.util.Map;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/**
 * A refusal in OpenAI's error shape, {@code {"error": {"message", "type", "param", "code"}}}, with the
 * status OpenAI answers it with, so that the official SDKs raise their typed errors
 * ({@code BadRequestError}, {@code NotFoundError}, …). The trace id goes in {@code x-request-id}, where
 * the SDKs read a request's id.
 */
final class OpenAiError extends RuntimeException {

  /** Canonical codes whose OpenAI counterpart has another name, or another status. */
  private static final Map<String, String> CODES = Map.of(
      ErrorCode.UNKNOWN_MODEL.name(), "model_not_found",
      "UNAUTHENTICATED", "invalid_api_key",
      "RATE_LIMITED", "rate_limit_exceeded",
      "QUOTA_EXCEEDED", "insufficient_quota");
  private static final Map<String, Integer> STATUSES = Map.of(ErrorCode.UNKNOWN_MODEL.name(), 404);

  record Body(Detail error) {}

  record Detail(String message, String type, String param, String code) {}

  private final int status;
  private final String type;
  private final String param;
  private final String code;

  OpenAiError(int status, String code, String param, String message) {
    super(message, null, false, false);
    this.status = status;
    this.type = typeOf(status);
    this.param = param;
    this.code = code;
  }

  /** A request that cannot be taken as it is: 400 {@code invalid_request_error} naming the parameter. */
  static OpenAiError invalid(String code, String param, String message) {
    return new OpenAiError(400, code, param, message);
  }

  /** A refusal of the canonical API (its code and status) as OpenAI would word it. */
  static OpenAiError of(int canonicalStatus, String canonicalCode, String message) {
    String code = CODES.getOrDefault(canonicalCode, canonicalCode.toLowerCase(Locale.ROOT));
    String param = canonicalCode.equals(ErrorCode.UNKNOWN_MODEL.name()) ? "model" : null;
    return new OpenAiError(STATUSES.getOrDefault(canonicalCode, canonicalStatus), code, param, message);
  }

  /** An engine refusal, answered with the status its code has in the canonical API. */
  static OpenAiError refused(String canonicalCode, String message) {
    int status = ErrorCode.find(canonicalCode).map(ErrorCode::httpStatus).orElse(500);
    return of(status, canonicalCode, message);
  }

  private static String typeOf(int status) {
    return switch (status) {
      case 401 -> "authentication_error";
      case 403 -> "permission_error";
      case 429 -> "rate_limit_error";
      default -> status >= 500 ? "server_error" : "invalid_request_error";
    };
  }

  Detail detail() {
    return new Detail(getMessage(), type, param, code);
  }

  HttpResponse response(String traceId) {
    return Json.response(StatusCodes.get(status), new Body(detail()))
        .addHeader(RawHeader.create("x-request-id", traceId));
  }
}
