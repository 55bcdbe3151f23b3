package dev.colloquy.ingestion.parse;

import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;

/**
 * The limits a running parse checks as it goes: a deadline, a cancel flag and a cap on extracted
 * text. Checked on every SAX event, so a parse over time or over budget stops at its next event.
 */
final class TextBudget {

  private final long deadlineNanos;
  private final long maxChars;
  private long chars;
  private volatile boolean cancelled;

  TextBudget(long timeoutNanos, long maxChars) {
    this.deadlineNanos = System.nanoTime() + timeoutNanos;
    this.maxChars = maxChars;
  }

  void cancel() {
    cancelled = true;
  }

  void check() {
    if (cancelled || System.nanoTime() - deadlineNanos > 0) {
      throw new IngestionException(Code.PARSE_TIMEOUT, "parsing took longer than the configured limit");
    }
  }

  void spend(long count) {
    chars += count;
    if (chars > maxChars) {
      throw new IngestionException(
          Code.TOO_MUCH_TEXT, "the file yields more than " + maxChars + " characters of text");
    }
    check();
  }
}
