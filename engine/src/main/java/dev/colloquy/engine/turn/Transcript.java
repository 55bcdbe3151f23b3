package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnOutcome;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames of one turn, numbered 1, 2, 3 …, and their layout as frame marks. The supervisor
 * records the live stream here; a finished turn's stream is rebuilt here from its journaled layout
 * with the very ids the live stream had, so a client resuming after the end gets exactly the frames
 * it missed.
 */
public final class Transcript {

  private final String sessionId;
  private final String turnId;
  private final String traceId;
  private final List<TurnFrame> frames = new ArrayList<>();
  private final List<FrameMark> marks = new ArrayList<>();

  Transcript(String sessionId, String turnId, String traceId) {
    this.sessionId = sessionId;
    this.turnId = turnId;
    this.traceId = traceId;
  }

  /** The frames of an ended turn with an id above {@code afterId}, ending with its terminal frame. */
  public static List<TurnFrame> replay(String sessionId, String turnId, String traceId, List<RunSpec> runs,
      TurnOutcome outcome, TurnEnding ending, long afterId) {
    Transcript transcript = new Transcript(sessionId, turnId, traceId);
    transcript.rebuild(runs, outcome);
    boolean layoutKnown = !outcome.frames().isEmpty();
    List<TurnFrame> frames = new ArrayList<>(transcript.frames);
    frames.add(layoutKnown ? transcript.end(ending) : transcript.lost(ending));
    return frames.stream().filter(frame -> frame.id() > afterId).toList();
  }

  /** Appends a frame and its place in the layout; returns the frame to send. */
  TurnFrame record(StreamEvent event, FrameMark mark) {
    TurnFrame frame = frame(frames.size() + 1, event);
    frames.add(frame);
    marks.add(mark);
    return frame;
  }

  List<TurnFrame> after(long afterId) {
    return frames.stream().filter(frame -> frame.id() > afterId).toList();
  }

  /** The layout to journal with the outcome. */
  List<FrameMark> marks() {
    return List.copyOf(marks);
  }

  /** What the token frames of one run carried. */
  String tokensOf(String runId) {
    StringBuilder text = new StringBuilder();
    for (TurnFrame frame : frames) {
      if (frame.event() instanceof StreamEvent.Token token && token.runId().equals(runId)) {
        text.append(token.text());
      }
    }
    return text.toString();
  }

  /** The terminal frame: it takes the next id and is not part of the layout. */
  TurnFrame end(TurnEnding ending) {
    return frame(frames.size() + 1, ending);
  }

  /**
   * The terminal frame of a turn whose layout is lost (its node crashed, or its outcome could not be
   * journaled): its clients may have seen frames up to any id, so it takes the reserved
   * {@link TurnFrame#LOST_LAYOUT_TERMINAL_ID}, live and in every replay alike.
   */
  TurnFrame lost(TurnEnding ending) {
    return frame(TurnFrame.LOST_LAYOUT_TERMINAL_ID, ending);
  }

  private void rebuild(List<RunSpec> runs, TurnOutcome outcome) {
    int[] consumed = new int[outcome.runs().size()];
    int gapIndex = 0;
    for (FrameMark mark : outcome.frames()) {
      StreamEvent event = switch (mark.kind()) {
        case STARTED -> new StreamEvent.Started(runs.stream().map(RunSpec::runId).toList());
        case RETRIEVAL -> new StreamEvent.Retrieved(outcome.citations(), outcome.confidence());
        case GAP -> new StreamEvent.GapFound(outcome.gaps().get(gapIndex++));
        case TOKEN -> {
          RunOutcome run = outcome.runs().get(mark.run());
          int start = consumed[mark.run()];
          consumed[mark.run()] = start + mark.length();
          yield new StreamEvent.Token(run.runId(), run.text().substring(start, start + mark.length()));
        }
        case RUN_COMPLETED -> new StreamEvent.RunCompleted(outcome.runs().get(mark.run()));
        case RUN_FAILED -> StreamEvent.RunFailed.of(outcome.runs().get(mark.run()));
      };
      record(event, mark);
    }
  }

  private TurnFrame frame(long id, StreamEvent event) {
    return new TurnFrame(id, sessionId, turnId, traceId, event);
  }
}
