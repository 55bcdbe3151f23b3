package dev.colloquy.app;

/** How a failure is told to a person: in one line, by the first cause that says something. */
public final class Failures {

  private Failures() {}

  /** The first message in the chain of causes, or the kind of failure when none has one. */
  public static String describe(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
        return cause.getMessage();
      }
    }
    return e.getClass().getSimpleName();
  }
}
