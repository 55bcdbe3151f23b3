package dev.colloquy.engine.domain;

import com.fasterxml.jackson.annotation.JsonFormat;
import dev.colloquy.engine.CborSerializable;

/**
 * The place of one stream frame in a finished turn, so the turn can be replayed with the very ids
 * the live stream had: a token frame is known by its run and its length in that run's text. Stored as
 * an array, without field names, because a turn has one per token.
 */
@JsonFormat(shape = JsonFormat.Shape.ARRAY)
public record FrameMark(Kind kind, int run, int length) implements CborSerializable {

  public enum Kind {
    STARTED,
    RETRIEVAL,
    GAP,
    TOKEN,
    RUN_COMPLETED,
    RUN_FAILED,
    /**
     * Not a frame: the frames after this point were streamed but never journaled (their node
     * crashed after its last checkpoint), so the turn's terminal frame takes
     * {@link TurnFrame#LOST_LAYOUT_TERMINAL_ID}, above any id a client may have seen.
     */
    LOST
  }

  public static FrameMark of(Kind kind) {
    return new FrameMark(kind, -1, 0);
  }
}
