package dev.colloquy.engine.tool;

/**
 * A call the tool could not answer, for a reason the model may read (an argument missing, a lookup
 * not configured, an upstream that failed): its message is the model's whole view of it, so it never
 * carries a secret or another tenant's data.
 */
public final class ToolFailure extends RuntimeException {

  private final String code;

  public ToolFailure(String code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  /** A short stable word for the kind of failure, e.g. {@code invalid_arguments}, {@code not_configured}. */
  public String code() {
    return code;
  }
}
