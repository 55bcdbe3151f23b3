package dev.colloquy.engine.model;

/** A model run that failed, with a stable upper-snake code for the {@code run.failed} event. */
public final class ModelException extends RuntimeException {

  public static final String TIMEOUT = "MODEL_TIMEOUT";
  public static final String RATE_LIMITED = "MODEL_RATE_LIMITED";
  public static final String UNAVAILABLE = "MODEL_UNAVAILABLE";
  public static final String REJECTED = "MODEL_REJECTED";
  public static final String STREAM_BROKEN = "MODEL_STREAM_BROKEN";
  public static final String ANSWER_TOO_LARGE = "MODEL_ANSWER_TOO_LARGE";

  private final String code;

  public ModelException(String code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public ModelException(String code, String message) {
    this(code, message, null);
  }

  public String code() {
    return code;
  }
}
