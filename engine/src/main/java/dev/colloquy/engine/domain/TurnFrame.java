package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;

/** One event of a turn's stream with its per-turn id (1, 2, 3 …) and the ids every frame carries. */
public record TurnFrame(long id, String sessionId, String turnId, String traceId, StreamEvent event)
    implements CborSerializable {

  /**
   * The id of the terminal frame of a turn whose frames were lost (its node crashed, or its outcome
   * could not be journaled): the clients may have seen any number of them. It is above every id a
   * turn reaches and the largest integer a JavaScript number holds exactly, so a client that resumes
   * after it is told nothing follows (204), and an EventSource stops reconnecting.
   */
  public static final long LOST_LAYOUT_TERMINAL_ID = (1L << 53) - 1;

  public boolean terminal() {
    return event.terminal();
  }
}
