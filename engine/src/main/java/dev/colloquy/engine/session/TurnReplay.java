package dev.colloquy.engine.session;

import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.turn.TurnEvent;
import dev.colloquy.engine.turn.TurnFrame;
import dev.colloquy.engine.domain.TurnOutcome;
import java.util.ArrayList;
import java.util.List;

/**
 * Rebuilds the stream of a finished turn from its journaled outcome, with the ids the live stream
 * had, so that a client resuming after the end gets exactly the frames it missed.
 */
final class TurnReplay {

  private TurnReplay() {}

  /** The frames with an id above {@code afterId}, ending with the turn's terminal frame. */
  static List<TurnFrame> framesAfter(String sessionId, TurnRecord turn, long afterId) {
    List<TurnEvent> events = events(turn);
    List<TurnFrame> frames = new ArrayList<>();
    long firstId = firstId(turn, events.size(), afterId);
    for (int i = 0; i < events.size(); i++) {
      long id = firstId + i;
      if (id > afterId) {
        frames.add(new TurnFrame(id, sessionId, turn.turnId(), turn.traceId(), events.get(i)));
      }
    }
    return frames;
  }

  /**
   * A turn cut short by a crash left no frame layout, yet its client may have seen frames up to any
   * id: its only frame, the terminal one, then takes the reserved {@link TurnFrame#LOST_LAYOUT_TERMINAL_ID}.
   */
  private static long firstId(TurnRecord turn, int eventCount, long afterId) {
    boolean layoutKnown = !turn.outcome().frames().isEmpty();
    return layoutKnown ? 1 : TurnFrame.LOST_LAYOUT_TERMINAL_ID + 1 - eventCount;
  }

  private static List<TurnEvent> events(TurnRecord turn) {
    TurnOutcome outcome = turn.outcome();
    List<TurnEvent> events = new ArrayList<>();
    int[] consumed = new int[outcome.runs().size()];
    int gapIndex = 0;
    for (FrameMark mark : outcome.frames()) {
      switch (mark.kind()) {
        case STARTED -> events.add(new TurnEvent.Started(turn.runs().stream().map(RunSpec::runId).toList()));
        case RETRIEVAL -> events.add(new TurnEvent.Retrieved(outcome.citations(), outcome.confidence()));
        case GAP -> events.add(new TurnEvent.GapFound(outcome.gaps().get(gapIndex++)));
        case TOKEN -> {
          RunOutcome run = outcome.runs().get(mark.run());
          int start = consumed[mark.run()];
          consumed[mark.run()] = start + mark.length();
          events.add(new TurnEvent.Token(run.runId(), run.text().substring(start, start + mark.length())));
        }
        case RUN_COMPLETED -> events.add(new TurnEvent.RunCompleted(outcome.runs().get(mark.run())));
        case RUN_FAILED -> {
          RunOutcome run = outcome.runs().get(mark.run());
          events.add(new TurnEvent.RunFailed(run.runId(), run.errorCode(), run.errorMessage()));
        }
      }
    }
    events.add(terminal(turn));
    return events;
  }

  static TurnEvent terminal(TurnRecord turn) {
    return switch (turn.status()) {
      case COMPLETED -> new TurnEvent.Completed(turn.assistantMessageId(), turn.outcome().text(),
          turn.outcome().latencyMs(), turn.outcome().usage());
      case FAILED -> new TurnEvent.Failed(turn.endCode(), turn.endMessage());
      case CANCELLED -> new TurnEvent.Cancelled(turn.endMessage());
      case PENDING -> throw new IllegalStateException("turn " + turn.turnId() + " has not ended");
    };
  }
}
