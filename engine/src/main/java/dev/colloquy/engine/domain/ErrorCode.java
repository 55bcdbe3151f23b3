package dev.colloquy.engine.domain;

import java.util.Optional;

/**
 * Every error code of the API with the HTTP status it is answered with. The names are the codes on
 * the wire (API.md, openapi.yaml): renaming one breaks clients.
 */
public enum ErrorCode {

  // Refusals of a session or turn command.
  SESSION_NOT_FOUND(404),
  SESSION_EXISTS(409),
  SESSION_CLOSED(409),
  TURN_NOT_FOUND(404),
  TURN_IN_PROGRESS(409),
  TURN_ENDED(409),
  TURN_QUEUE_FULL(429),
  TURN_LIMIT_REACHED(409),
  IDEMPOTENCY_KEY_REUSED(422),
  SESSION_NOT_ESCALATED(409),
  UNKNOWN_MODEL(422),
  TOO_MANY_MODELS(422),
  INVALID_TITLE(422),
  INVALID_FORK_POINT(422),
  INVALID_JOURNAL(422),
  SHUTTING_DOWN(503),
  OVERLOADED(503),

  // How a turn ends when it is asked for as JSON and does not complete. Why a single run failed
  // (run.failed) is no answer to a request and has no status: see ModelException.
  ALL_RUNS_FAILED(502),
  INTERRUPTED(502),
  TURN_CANCELLED(409),
  STREAM_ENDED(503),

  // A credential that may not do this (authentication's own refusals carry the same code).
  FORBIDDEN(403),

  // Requests the API cannot take as they are.
  MALFORMED_JSON(400),
  DUPLICATE_JSON_KEY(400),
  MALFORMED_REQUEST(400),
  BAD_REQUEST(400),
  FIELD_REQUIRED(400),
  INVALID_QUERY(400),
  INVALID_LAST_EVENT_ID(400),
  INVALID_SEQUENCE_NR(400),
  NOT_FOUND(404),
  METHOD_NOT_ALLOWED(405),
  REQUEST_TIMEOUT(408),
  MESSAGE_TOO_LARGE(413),
  REQUEST_TOO_LARGE(413),
  UNSUPPORTED_MEDIA_TYPE(415),
  MESSAGE_REQUIRED(422),
  EMPTY_MESSAGE(422),
  INVALID_FIELD(422),

  // Documents of the knowledge base; an ingestion refusal is the document's fault (422) unless named.
  DOCUMENT_NOT_FOUND(404),
  PASSAGE_NOT_FOUND(404),
  FILE_TOO_LARGE(413),
  UNSUPPORTED_FILE_TYPE(415),
  INGEST_QUEUE_FULL(429),
  UPLOADS_IN_PROGRESS(429),
  PARSE_OUT_OF_MEMORY(422),
  CORRUPT_FILE(422),
  ENCRYPTED(422),
  DECOMPRESSION_BOMB(422),
  XML_ENTITIES(422),
  PARSE_TIMEOUT(422),
  TOO_MUCH_TEXT(422),
  EMPTY_DOCUMENT(422),
  EMBEDDING_FAILED(422),
  STORE_FAILED(422),

  // Something this node depends on is down for the moment.
  SESSION_UNAVAILABLE(503),
  SESSION_LIST_UNAVAILABLE(503),
  JOURNAL_UNAVAILABLE(503),
  RESPONSE_TIMEOUT(503),

  INTERNAL_ERROR(500);

  private final int httpStatus;

  ErrorCode(int httpStatus) {
    this.httpStatus = httpStatus;
  }

  public int httpStatus() {
    return httpStatus;
  }

  /** The code of that name; codes read from a journal may predate this enum. */
  public static Optional<ErrorCode> find(String name) {
    for (ErrorCode code : values()) {
      if (code.name().equals(name)) {
        return Optional.of(code);
      }
    }
    return Optional.empty();
  }
}
