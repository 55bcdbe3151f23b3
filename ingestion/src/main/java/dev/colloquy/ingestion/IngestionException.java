package dev.colloquy.ingestion;

import java.util.Locale;

/**
 * Why a document could not be ingested. The {@link Code} is stable: the HTTP layer maps it to a
 * status and clients may branch on it; the message is for people.
 */
public final class IngestionException extends RuntimeException {

  /** Stable failure codes; their {@link #wireName()} is what documents and APIs report. */
  public enum Code {
    /** The upload is larger than the configured maximum (HTTP 413). */
    TOO_LARGE,
    /** The file is none of PDF, DOCX, HTML, Markdown, TXT or CSV (HTTP 415). */
    UNSUPPORTED_TYPE,
    /** The file could not be read as the type it claims to be. */
    CORRUPT_FILE,
    /** The file is password protected. */
    ENCRYPTED,
    /** An archive (DOCX) with too many entries or too much uncompressed content. */
    DECOMPRESSION_BOMB,
    /** The file declares a DTD or XML entities, which are refused. */
    XML_ENTITIES,
    /** Extracting the text took longer than the configured limit. */
    PARSE_TIMEOUT,
    /** The extracted text is larger than the configured limit. */
    TOO_MUCH_TEXT,
    /** Parsing needed more memory than a parser process has (a PDF or archive that inflates without end). */
    PARSE_OUT_OF_MEMORY,
    /** Too many accepted files wait for ingestion; try again later (HTTP 429). */
    QUEUE_FULL,
    /** The file holds no text to index. */
    EMPTY_DOCUMENT,
    /** The embedding model failed or answered something unusable. */
    EMBEDDING_FAILED,
    /** The vector store failed. */
    STORE_FAILED,
    /** Anything else that went wrong while ingesting. */
    INTERNAL_ERROR;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Code code;

  public IngestionException(Code code, String message) {
    super(message);
    this.code = code;
  }

  public IngestionException(Code code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public Code code() {
    return code;
  }
}
