package dev.colloquy.engine.turn;

import dev.colloquy.engine.CborSerializable;

/** One event of a turn's stream with its per-turn id (1, 2, 3 …) and the ids every frame carries. */
public record TurnFrame(long id, String sessionId, String turnId, String traceId, TurnEvent event)
    implements CborSerializable {

  public boolean terminal() {
    return event.terminal();
  }
}
