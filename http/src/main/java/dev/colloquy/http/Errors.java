package dev.colloquy.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.session.ChatSession;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/** The error body of API.md, and the HTTP status of each engine refusal. */
public final class Errors {

  private Errors() {}

  /** Seconds a client refused with 429 is told to wait before it tries again. */
  static final String RETRY_AFTER_SECONDS = "1";
  /** Seconds a client refused with 503 (journal down, node shutting down) is told to wait. */
  static final String UNAVAILABLE_RETRY_AFTER_SECONDS = "5";

  public static HttpResponse response(StatusCode status, String code, String message, String traceId) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    ObjectNode error = body.putObject("error");
    error.put("code", code);
    error.put("message", message);
    error.put("trace_id", traceId);
    HttpResponse response = HttpResponse.create()
        .withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString()));
    if (status.equals(StatusCodes.TOO_MANY_REQUESTS)) {
      return response.addHeader(RawHeader.create("Retry-After", RETRY_AFTER_SECONDS));
    }
    if (status.equals(StatusCodes.SERVICE_UNAVAILABLE)) {
      return response.addHeader(RawHeader.create("Retry-After", UNAVAILABLE_RETRY_AFTER_SECONDS));
    }
    return response;
  }

  static HttpResponse of(ApiException e, String traceId) {
    return response(e.status(), e.code(), e.getMessage(), traceId);
  }

  static ApiException of(ChatSession.Rejected rejected) {
    return new ApiException(statusOf(rejected.code()), rejected.code(), rejected.message());
  }

  static StatusCode statusOf(String code) {
    return switch (code) {
      case ChatSession.SESSION_NOT_FOUND, ChatSession.TURN_NOT_FOUND -> StatusCodes.NOT_FOUND;
      case ChatSession.SESSION_EXISTS, ChatSession.SESSION_CLOSED, ChatSession.TURN_IN_PROGRESS,
          ChatSession.TURN_ENDED -> StatusCodes.CONFLICT;
      case ChatSession.TURN_QUEUE_FULL -> StatusCodes.TOO_MANY_REQUESTS;
      case ChatSession.SHUTTING_DOWN -> StatusCodes.SERVICE_UNAVAILABLE;
      case ChatSession.UNKNOWN_MODEL, ChatSession.TOO_MANY_MODELS, ChatSession.INVALID_MESSAGE ->
          StatusCodes.UNPROCESSABLE_ENTITY;
      default -> StatusCodes.INTERNAL_SERVER_ERROR;
    };
  }
}
