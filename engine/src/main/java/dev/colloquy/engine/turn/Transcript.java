package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnAttempt;
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
  /** Every frame of the turn: those of earlier attempts (and their restart frames) first. */
  private final List<TurnFrame> frames = new ArrayList<>();
  /** The layout of this attempt's frames only. */
  private final List<FrameMark> marks = new ArrayList<>();
  /** How many of {@link #frames} precede this attempt. */
  private int earlier;
  private long nextId = 1;

  Transcript(String sessionId, String turnId, String traceId) {
    this.sessionId = sessionId;
    this.turnId = turnId;
    this.traceId = traceId;
  }

  /**
   * The transcript of an attempt that follows earlier ones: their frames, ending with the restart
   * frame; this attempt's frames follow it.
   */
  static Transcript continuing(String sessionId, String turnId, String traceId, List<TurnFrame> earlierFrames) {
    Transcript transcript = new Transcript(sessionId, turnId, traceId);
    transcript.frames.addAll(earlierFrames);
    transcript.earlier = earlierFrames.size();
    transcript.nextId = earlierFrames.getLast().id() + 1;
    return transcript;
  }

  /** The frames of an ended turn with an id above {@code afterId}, ending with its terminal frame. */
  public static List<TurnFrame> replay(String sessionId, String turnId, String traceId, List<RunSpec> runs,
      TurnOutcome outcome, TurnEnding ending, long afterId) {
    return replay(sessionId, turnId, traceId, List.of(), runs, outcome, ending, afterId);
  }

  /**
   * The frames of an ended turn, its {@code attempts} cut short by lost nodes first, with an id above
   * {@code afterId}, ending with its terminal frame.
   */
  public static List<TurnFrame> replay(String sessionId, String turnId, String traceId, List<TurnAttempt> attempts,
      List<RunSpec> runs, TurnOutcome outcome, TurnEnding ending, long afterId) {
    Transcript transcript = earlierAttempts(sessionId, turnId, traceId, attempts, runs);
    boolean lost = transcript.rebuild(runs, outcome);
    boolean layoutKnown = !outcome.frames().isEmpty() && !lost;
    List<TurnFrame> frames = new ArrayList<>(transcript.frames);
    frames.add(layoutKnown ? transcript.end(ending) : transcript.lost(ending));
    return frames.stream().filter(frame -> frame.id() > afterId).toList();
  }

  /**
   * The frames of the attempts cut short, each followed by its restart frame naming the runs of the
   * attempt after it ({@code runs} for the last): what a turn that runs again streams before its own frames.
   */
  public static List<TurnFrame> earlierFrames(String sessionId, String turnId, String traceId,
      List<TurnAttempt> attempts, List<RunSpec> runs) {
    return List.copyOf(earlierAttempts(sessionId, turnId, traceId, attempts, runs).frames);
  }

  private static Transcript earlierAttempts(String sessionId, String turnId, String traceId,
      List<TurnAttempt> attempts, List<RunSpec> runs) {
    Transcript transcript = new Transcript(sessionId, turnId, traceId);
    for (int i = 0; i < attempts.size(); i++) {
      TurnAttempt attempt = attempts.get(i);
      transcript.rebuild(attempt.runs(), attempt.outcome());
      List<RunSpec> next = i + 1 < attempts.size() ? attempts.get(i + 1).runs() : runs;
      transcript.restart(attempt.restartFrameId(),
          new StreamEvent.Restarted(next.stream().map(RunSpec::runId).toList(), attempt.reason()));
      transcript.marks.clear();
    }
    return transcript;
  }

  private void restart(long restartFrameId, StreamEvent.Restarted restart) {
    nextId = restartFrameId;
    frames.add(frame(nextId++, restart));
  }

  /** Appends a frame and its place in the layout; returns the frame to send. */
  TurnFrame record(StreamEvent event, FrameMark mark) {
    TurnFrame frame = frame(nextId++, event);
    frames.add(frame);
    marks.add(mark);
    return frame;
  }

  List<TurnFrame> after(long afterId) {
    return frames.stream().filter(frame -> frame.id() > afterId).toList();
  }

  /** The layout to journal with the outcome: this attempt's frames. */
  List<FrameMark> marks() {
    return List.copyOf(marks);
  }

  /** How many frames this attempt has recorded. */
  int recorded() {
    return marks.size();
  }

  /** This attempt's frames from the {@code from}th on, with their marks. */
  List<TurnFrame> framesFrom(int from) {
    return List.copyOf(frames.subList(earlier + from, frames.size()));
  }

  List<FrameMark> marksFrom(int from) {
    return List.copyOf(marks.subList(from, marks.size()));
  }

  /** The id the next frame will take. */
  long nextId() {
    return nextId;
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
    return frame(nextId, ending);
  }

  /**
   * The terminal frame of a turn whose layout is lost (its node crashed, or its outcome could not be
   * journaled): its clients may have seen frames up to any id, so it takes the reserved
   * {@link TurnFrame#LOST_LAYOUT_TERMINAL_ID}, live and in every replay alike.
   */
  TurnFrame lost(TurnEnding ending) {
    return frame(TurnFrame.LOST_LAYOUT_TERMINAL_ID, ending);
  }

  /** Records the frames of a journaled layout; true when it ends with frames that were lost. */
  private boolean rebuild(List<RunSpec> runs, TurnOutcome outcome) {
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
        case RUN_FAILED -> {
          RunOutcome run = outcome.runs().get(mark.run());
          yield new StreamEvent.RunFailed(run.runId(), run.errorCode(), run.errorMessage());
        }
        case LOST -> null;
      };
      if (event == null) {
        return true;
      }
      record(event, mark);
    }
    return false;
  }

  private TurnFrame frame(long id, StreamEvent event) {
    return new TurnFrame(id, sessionId, turnId, traceId, event);
  }
}
