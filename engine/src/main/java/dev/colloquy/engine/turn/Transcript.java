package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnAttempt;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Utf8;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The frames of one turn, numbered 1, 2, 3 …, kept while it runs so a client can resume from any id,
 * and the one buffer between the model and the turn's readers. Tokens are appended by the model's
 * own reader thread ({@link RunTokens}); the supervisor appends the other frames and the terminal one.
 * Each reader ({@link #frames}) is a cursor into it that is woken when a frame arrives: no actor
 * stands between a token and the HTTP response, and a slow reader costs nothing but its cursor.
 * A finished turn's stream is rebuilt here from its journaled layout with the very ids the live
 * stream had, so a client resuming after the end gets exactly the frames it missed.
 *
 * <p>While the turn runs, readers get no frame above {@link #release released}: the id its journaled
 * checkpoints have reserved (see {@code Checkpoints}), so after a crash the journal bounds what any
 * client can have seen. The cap is read under the lock {@link #next} already takes; the turn's end
 * lifts it. A turn that another node runs again after its own was lost starts with the frames of the
 * attempts before it, the last of them its {@code turn.restarted} frame. A turn may also {@link #hold}
 * its frames back, unnumbered, while it does not yet know the frame that must go before them.
 */
public final class Transcript {

  /**
   * The text all runs of one turn may stream together, in UTF-8: one answer at its own limit, or
   * several sharing it. Every view, frame and journaled outcome of a turn carries each run's text
   * once at most, so this bounds what a turn adds to anything that crosses nodes (the worst cases
   * are reckoned where the frame size is set, in the engine's reference.conf).
   */
  public static final long ANSWER_BUDGET_BYTES = OpenAiChatModel.MAX_ANSWER_BYTES;

  private final String sessionId;
  private final String turnId;
  private final String traceId;
  private final List<String> runIds;
  private final List<TurnFrame> frames = new ArrayList<>();
  private final StringBuilder[] texts;
  private final boolean[] closed;
  private final List<Reader> readers = new ArrayList<>();
  private TurnFrame terminal;
  private IntConsumer readersWatcher = count -> { };
  /** How many of {@link #frames} belong to the attempts before this one. */
  private final int earlier;
  private long nextId = 1;
  /** The UTF-8 length of this attempt's token frames: what counts against {@link #ANSWER_BUDGET_BYTES}. */
  private long answerBytes;
  /** The highest id readers may have before the turn ends. */
  private long released;
  /** This attempt's frame count at which {@link #checkpointSignal} runs, once. */
  private int signalAt = Integer.MAX_VALUE;
  private Runnable checkpointSignal = () -> { };
  /** The frames kept back, in the order they came, until {@link #releaseHeld}; null while none are. */
  private List<StreamEvent> held;

  /** A transcript for the live frames of a turn whose runs are {@code runs}, all of them released. */
  public Transcript(String sessionId, String turnId, String traceId, List<RunSpec> runs) {
    this(sessionId, turnId, traceId, runs, List.of(), Long.MAX_VALUE);
  }

  /**
   * A transcript for the live frames of a turn whose runs are {@code runs}, after {@code earlierFrames}
   * (the attempts lost nodes cut short, none for a turn's first attempt), releasing frames up to
   * {@code released} until {@link #release} says more.
   */
  public Transcript(String sessionId, String turnId, String traceId, List<RunSpec> runs,
      List<TurnFrame> earlierFrames, long released) {
    this.frames.addAll(earlierFrames);
    this.earlier = earlierFrames.size();
    this.nextId = earlierFrames.isEmpty() ? 1 : earlierFrames.getLast().id() + 1;
    this.released = released;
    this.sessionId = sessionId;
    this.turnId = turnId;
    this.traceId = traceId;
    this.runIds = runs.stream().map(RunSpec::runId).toList();
    this.texts = new StringBuilder[runs.size()];
    this.closed = new boolean[runs.size()];
    for (int i = 0; i < texts.length; i++) {
      texts[i] = new StringBuilder();
    }
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
    Transcript transcript = new Transcript(sessionId, turnId, traceId, runs,
        earlierFrames(sessionId, turnId, traceId, attempts, runs), Long.MAX_VALUE);
    boolean lost = transcript.rebuild(outcome);
    boolean layoutKnown = !outcome.frames().isEmpty() && !lost;
    List<TurnFrame> frames = new ArrayList<>(transcript.frames);
    frames.add(layoutKnown ? transcript.frame(transcript.nextId, ending) : transcript.frame(
        TurnFrame.LOST_LAYOUT_TERMINAL_ID, ending));
    return frames.stream().filter(frame -> frame.id() > afterId).toList();
  }

  /**
   * The frames of the attempts cut short, each followed by its restart frame naming the runs of the
   * attempt after it ({@code runs} for the last): what a turn that runs again streams before its own.
   */
  public static List<TurnFrame> earlierFrames(String sessionId, String turnId, String traceId,
      List<TurnAttempt> attempts, List<RunSpec> runs) {
    List<TurnFrame> frames = new ArrayList<>();
    for (int i = 0; i < attempts.size(); i++) {
      TurnAttempt attempt = attempts.get(i);
      Transcript transcript = new Transcript(sessionId, turnId, traceId, attempt.runs(), frames, Long.MAX_VALUE);
      transcript.rebuild(attempt.outcome());
      List<RunSpec> next = i + 1 < attempts.size() ? attempts.get(i + 1).runs() : runs;
      frames = new ArrayList<>(transcript.frames);
      frames.add(transcript.frame(attempt.restartFrameId(),
          new StreamEvent.Restarted(next.stream().map(RunSpec::runId).toList(), attempt.reason())));
    }
    return frames;
  }

  /**
   * A stream of the frames with an id above {@code afterId}, live: it ends after the terminal frame.
   * Each materialization is one reader.
   */
  public Source<TurnFrame, NotUsed> frames(long afterId) {
    return Source.fromGraph(new TranscriptSource(this, afterId));
  }

  /** Where the tokens of run {@code run} go, from the model's own thread. */
  RunTokens run(int run) {
    return new RunTokens(this, run);
  }

  /** Told the number of readers each time it changes, from the reader's thread. */
  synchronized void watchReaders(IntConsumer watcher) {
    this.readersWatcher = watcher;
  }

  synchronized int readers() {
    return readers.size();
  }

  /** Appends a frame that is not a token; false once the turn has its terminal frame (it is dropped). */
  boolean record(StreamEvent event) {
    return append(event, -1);
  }

  /**
   * Appends a token of an open run. It is dropped when the run or the turn has ended, and when it
   * would take the text of the turn's runs together past {@link #ANSWER_BUDGET_BYTES}: the run is
   * then closed, keeping what it streamed within the budget, and is told so once.
   */
  TokenTaken token(int run, String text) {
    long bytes = Utf8.length(text);
    Appended appended;
    synchronized (this) {
      if (terminal != null || closed[run]) {
        return TokenTaken.DROPPED;
      }
      if (answerBytes + bytes > ANSWER_BUDGET_BYTES) {
        closed[run] = true;
        return TokenTaken.OVER_BUDGET;
      }
      answerBytes += bytes;
      texts[run].append(text);
      StreamEvent.Token token = new StreamEvent.Token(runIds.get(run), text);
      if (held != null) {
        held.add(token);
        return TokenTaken.TAKEN;
      }
      appended = appendLocked(token);
    }
    appended.announce();
    return TokenTaken.TAKEN;
  }

  /** What became of a token: streamed, dropped (its run had ended), or refused by the turn's answer budget. */
  enum TokenTaken {
    TAKEN,
    DROPPED,
    OVER_BUDGET
  }

  /**
   * Appends a tool call or result of an open run; false when the run or the turn has ended (the frame
   * is dropped, so the journaled layout holds every frame a reader saw).
   */
  boolean toolStep(int run, StreamEvent.ToolEvent event) {
    return append(event, run);
  }

  /**
   * From now on frames are kept back, in the order they come, until {@link #releaseHeld} puts the frame
   * that must come first before them. A turn that starts its answer before it knows the message's
   * language keeps the answer behind the intent frame, which carries the language. A token kept back
   * counts against the answer budget and is its run's text as it comes, as any other.
   */
  synchronized void hold() {
    if (held == null && terminal == null) {
      held = new ArrayList<>();
    }
  }

  /** Whether frames are being kept back. */
  synchronized boolean holding() {
    return held != null;
  }

  /**
   * Records {@code first}, then the frames kept back since {@link #hold}, in their order, and wakes the
   * readers; nothing is kept back after it. Nothing is recorded once the turn has its terminal frame.
   */
  void releaseHeld(StreamEvent first) {
    List<Appended> appended = new ArrayList<>();
    synchronized (this) {
      List<StreamEvent> waiting = held;
      held = null;
      if (waiting == null || terminal != null) {
        return;
      }
      appended.add(appendLocked(first));
      waiting.forEach(event -> appended.add(appendLocked(event)));
    }
    appended.forEach(Appended::announce);
  }

  /** No token of {@code run} is accepted from now on. */
  synchronized void closeRun(int run) {
    closed[run] = true;
  }

  /** No token of any run is accepted from now on. */
  synchronized void closeRuns() {
    Arrays.fill(closed, true);
  }

  /**
   * Readers may have the frames up to id {@code through} (a checkpoint reserving them is journaled);
   * those waiting are woken.
   */
  void release(long through) {
    List<Reader> woken;
    synchronized (this) {
      if (through <= released) {
        return;
      }
      released = through;
      woken = waiting();
    }
    woken.forEach(Reader::wake);
  }

  /** The highest id readers may have now. */
  synchronized long released() {
    return released;
  }

  /**
   * Runs {@code signal} once, from the appending thread, when this attempt has recorded
   * {@code frames} frames: a checkpoint is due without a message per token.
   */
  synchronized void signalAt(int frames, Runnable signal) {
    this.signalAt = frames;
    this.checkpointSignal = signal;
  }

  /** This attempt's frames from its {@code from}th on: what a checkpoint journals. */
  synchronized List<TurnFrame> recordedFrom(int from) {
    return List.copyOf(frames.subList(earlier + from, frames.size()));
  }

  /** The id the next frame takes. */
  synchronized long nextId() {
    return nextId;
  }

  /** Whether this turn runs again after its node was lost: its first frames are the attempts' before. */
  boolean restarted() {
    return earlier > 0;
  }

  List<String> runIds() {
    return runIds;
  }

  /** What the token frames of one run carried so far. */
  synchronized String tokensOf(int run) {
    return texts[run].toString();
  }

  /**
   * How much of run {@code run} has been streamed, in characters: what a checkpoint of the turn's
   * progress would record.
   */
  synchronized int streamed(int run) {
    return texts[run].length();
  }

  /** The layout to journal with the outcome (this attempt's frames): consecutive tokens of one run make one mark. */
  synchronized List<FrameMark> marks() {
    return layout(frames.subList(earlier, frames.size()), runIds);
  }

  /** The layout of {@code frames}, all of one attempt whose runs are {@code runIds}. */
  static List<FrameMark> layout(List<TurnFrame> frames, List<String> runIds) {
    List<FrameMark> marks = new ArrayList<>();
    int tokenRun = -1;
    List<Integer> lengths = new ArrayList<>();
    for (TurnFrame frame : frames) {
      if (frame.event() instanceof StreamEvent.Token token) {
        int run = runIds.indexOf(token.runId());
        if (run != tokenRun) {
          addTokens(marks, tokenRun, lengths);
          tokenRun = run;
        }
        lengths.add(token.text().length());
        continue;
      }
      addTokens(marks, tokenRun, lengths);
      tokenRun = -1;
      marks.add(switch (frame.event()) {
        case StreamEvent.Started started -> FrameMark.of(FrameMark.Kind.STARTED);
        case StreamEvent.Retrieved retrieved -> FrameMark.of(FrameMark.Kind.RETRIEVAL);
        case StreamEvent.GapFound gap -> FrameMark.of(FrameMark.Kind.GAP);
        case StreamEvent.RunCompleted completed ->
            FrameMark.ofRun(FrameMark.Kind.RUN_COMPLETED, runIds.indexOf(completed.run().runId()));
        case StreamEvent.RunFailed failed -> FrameMark.ofRun(FrameMark.Kind.RUN_FAILED, runIds.indexOf(failed.runId()));
        case StreamEvent.IntentRouted routed -> FrameMark.of(FrameMark.Kind.INTENT);
        case StreamEvent.Escalated escalated -> FrameMark.of(FrameMark.Kind.ESCALATION);
        case StreamEvent.ToolCalled called -> FrameMark.ofRun(FrameMark.Kind.TOOL_CALLED, runIds.indexOf(called.runId()));
        case StreamEvent.ToolResulted result -> FrameMark.ofRun(FrameMark.Kind.TOOL_RESULT, runIds.indexOf(result.runId()));
        case StreamEvent.Token token -> throw new IllegalStateException("tokens are marked above");
        case StreamEvent.Restarted restarted -> throw new IllegalStateException("a restart ends an earlier attempt");
        case TurnEnding ending -> throw new IllegalStateException("the terminal frame is not part of the layout");
      });
    }
    addTokens(marks, tokenRun, lengths);
    return marks;
  }

  /** The tool calls and results so far, in frame order: what the outcome journals for the layout's tool marks. */
  synchronized List<StreamEvent.ToolEvent> toolEvents() {
    return frames.stream().map(TurnFrame::event).filter(StreamEvent.ToolEvent.class::isInstance)
        .map(StreamEvent.ToolEvent.class::cast).toList();
  }

  private static void addTokens(List<FrameMark> marks, int run, List<Integer> lengths) {
    if (!lengths.isEmpty()) {
      marks.add(FrameMark.tokens(run, lengths.stream().mapToInt(Integer::intValue).toArray()));
      lengths.clear();
    }
  }

  /**
   * The terminal frame: it takes the next id and is not part of the layout. The outcome it follows
   * holds every frame, so every frame may now be read.
   */
  void end(TurnEnding ending) {
    synchronized (this) {
      released = Long.MAX_VALUE;
    }
    terminate(nextId, ending);
  }

  /**
   * The terminal frame of a turn whose layout is lost (its node crashed, or its outcome could not be
   * journaled, or it ended before it ran): its clients may have seen frames up to any id, so it
   * takes the reserved {@link TurnFrame#LOST_LAYOUT_TERMINAL_ID}, live and in every replay alike.
   * Frames no journaled checkpoint released are never read: the journal will not have them.
   */
  public void lost(TurnEnding ending) {
    terminate(TurnFrame.LOST_LAYOUT_TERMINAL_ID, ending);
  }

  private void terminate(long id, TurnEnding ending) {
    List<Reader> woken;
    synchronized (this) {
      if (terminal != null) {
        return;
      }
      terminal = frame(id, ending);
      Arrays.fill(closed, true);
      woken = waiting();
    }
    woken.forEach(Reader::wake);
  }

  private boolean append(StreamEvent event, int run) {
    Appended appended;
    synchronized (this) {
      if (terminal != null || (run >= 0 && closed[run])) {
        return false;
      }
      if (held != null) {
        held.add(event);
        return true;
      }
      appended = appendLocked(event);
    }
    appended.announce();
    return true;
  }

  /** Records a frame with the lock held; what it woke is {@link Appended#announce announced} once the lock is released. */
  private Appended appendLocked(StreamEvent event) {
    TurnFrame frame = frame(nextId++, event);
    frames.add(frame);
    Runnable signal = null;
    if (frames.size() - earlier >= signalAt) {
      signalAt = Integer.MAX_VALUE;
      signal = checkpointSignal;
    }
    return new Appended(frame.id() <= released ? waiting() : List.of(), signal);
  }

  /** What recording a frame woke: readers, and the checkpoint signal it made due (null for none). */
  private record Appended(List<Reader> woken, Runnable signal) {

    void announce() {
      woken.forEach(Reader::wake);
      if (signal != null) {
        signal.run();
      }
    }
  }

  /** The readers waiting for a frame, no longer waiting; called with the lock held. */
  private List<Reader> waiting() {
    List<Reader> woken = List.of();
    for (Reader reader : readers) {
      if (reader.waiting) {
        reader.waiting = false;
        if (woken.isEmpty()) {
          woken = new ArrayList<>(1);
        }
        woken.add(reader);
      }
    }
    return woken;
  }

  // ---- readers ----

  /** One reader's place in the transcript; it is woken (from the appending thread) when it waits and a frame arrives. */
  static final class Reader {
    private final Runnable wake;
    private final long afterId;
    private int next;
    private boolean waiting;
    private boolean ended;

    Reader(long afterId, Runnable wake) {
      this.afterId = afterId;
      this.wake = wake;
    }

    private void wake() {
      wake.run();
    }
  }

  Reader attach(long afterId, Runnable wake) {
    Reader reader = new Reader(afterId, wake);
    IntConsumer watcher;
    int count;
    synchronized (this) {
      readers.add(reader);
      watcher = readersWatcher;
      count = readers.size();
    }
    watcher.accept(count);
    return reader;
  }

  void detach(Reader reader) {
    IntConsumer watcher;
    int count;
    synchronized (this) {
      if (!readers.remove(reader)) {
        return;
      }
      watcher = readersWatcher;
      count = readers.size();
    }
    watcher.accept(count);
  }

  /**
   * The reader's next frame, or null when it has none yet: it is then woken when one arrives. After
   * the terminal frame there is nothing more, ever.
   */
  synchronized TurnFrame next(Reader reader) {
    while (reader.next < frames.size() && frames.get(reader.next).id() <= released) {
      TurnFrame frame = frames.get(reader.next++);
      if (frame.id() > reader.afterId) {
        return frame;
      }
    }
    if (terminal != null && !reader.ended) {
      reader.ended = true;
      if (terminal.id() > reader.afterId) {
        return terminal;
      }
    }
    reader.waiting = terminal == null;
    return null;
  }

  /** Whether the reader has read everything it ever will (the terminal frame, or the end when it is past it). */
  synchronized boolean finished(Reader reader) {
    return reader.ended;
  }

  /** Records the frames of a journaled layout; true when it ends with frames that were lost. */
  private boolean rebuild(TurnOutcome outcome) {
    int[] consumed = new int[outcome.runs().size()];
    int gapIndex = 0;
    int toolIndex = 0;
    for (FrameMark mark : outcome.frames()) {
      switch (mark.kind()) {
        case LOST -> {
          return true;
        }
        case STARTED -> record(new StreamEvent.Started(runIds));
        case RETRIEVAL -> record(new StreamEvent.Retrieved(outcome.citations(), outcome.confidence()));
        case GAP -> record(new StreamEvent.GapFound(outcome.gaps().get(gapIndex++)));
        case TOKEN -> {
          RunOutcome run = outcome.runs().get(mark.run());
          for (int length : mark.lengths()) {
            int start = consumed[mark.run()];
            consumed[mark.run()] = start + length;
            record(new StreamEvent.Token(run.runId(), run.text().substring(start, start + length)));
          }
        }
        case RUN_COMPLETED -> record(new StreamEvent.RunCompleted(outcome.runs().get(mark.run())));
        case RUN_FAILED -> record(StreamEvent.RunFailed.of(outcome.runs().get(mark.run())));
        case INTENT -> record(new StreamEvent.IntentRouted(outcome.agent().intent(), outcome.agent().language()));
        case ESCALATION -> record(new StreamEvent.Escalated(outcome.agent().escalation()));
        case TOOL_CALLED, TOOL_RESULT -> record(outcome.tools().get(toolIndex++));
      }
    }
    return false;
  }

  private TurnFrame frame(long id, StreamEvent event) {
    return new TurnFrame(id, sessionId, turnId, traceId, event);
  }
}
