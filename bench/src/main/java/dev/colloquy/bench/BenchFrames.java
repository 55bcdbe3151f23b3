package dev.colloquy.bench;

import java.util.Iterator;
import java.util.function.LongConsumer;

/**
 * Reads a turn's Server-Sent Events as a bench dialect's client does, frame by frame to the end of the
 * stream, and fails when the stream ends without the dialect's end frame.
 */
final class BenchFrames {

  /** One frame: its {@code event} name (null before any) and its {@code data}; true for the end frame. */
  interface Frame {
    boolean ends(String event, String data) throws Exception;
  }

  private BenchFrames() {}

  /**
   * The frames of a dialect that names them: each {@code token} frame is a token (reported to
   * {@code tokens} as it arrives), {@code end} ends the stream, and an {@code error} frame fails the turn.
   */
  static Frame named(String token, String end, LongConsumer tokens) {
    return (event, data) -> {
      if (token.equals(event)) {
        tokens.accept(System.nanoTime());
      } else if ("error".equals(event)) {
        throw new IllegalStateException("turn failed: " + data);
      }
      return end.equals(event);
    };
  }

  /** {@code missingEnd} says what is wrong when no frame ended the stream ("the edge stream ended without chat.done"). */
  static void read(Iterator<String> lines, Frame frame, String missingEnd) throws Exception {
    String event = null;
    boolean ended = false;
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("event: ")) {
        event = line.substring(7);
      } else if (line.startsWith("data: ")) {
        ended |= frame.ends(event, line.substring(6));
      }
    }
    if (!ended) {
      throw new IllegalStateException(missingEnd);
    }
  }
}
