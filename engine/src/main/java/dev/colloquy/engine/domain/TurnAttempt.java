package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;
import java.util.List;

/**
 * An attempt at a turn that its node's crash cut short before another node ran the turn again:
 * its runs, what it had journaled (as an outcome), and the id of the {@code turn.restarted} frame
 * that followed it, which is above every id the attempt may have streamed.
 */
public record TurnAttempt(List<RunSpec> runs, TurnOutcome outcome, long restartFrameId, String reason)
    implements CborSerializable {

  public TurnAttempt {
    runs = List.copyOf(runs);
  }
}
