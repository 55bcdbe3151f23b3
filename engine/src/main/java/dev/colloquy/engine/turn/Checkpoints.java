package dev.colloquy.engine.turn;

import dev.colloquy.config.SessionSettings;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A running turn's checkpoints: when the next one is due (every so many frames or so long, whichever
 * comes first, one at a time), what it journals (the frames since the last one), and how far the
 * turn may stream meanwhile. A frame is sent to clients only once a journaled checkpoint has
 * reserved its id, so after a crash the journal bounds what any client can have seen: the next
 * node knows which ids are taken and how much was lost (at most the reserve, usually less than one
 * interval, since the next checkpoint is normally journaled long before the reserve runs out).
 */
final class Checkpoints {

  private final SessionSettings.Checkpoint settings;
  private final int runs;
  /** The frames of this attempt the journal has (or is being given) so far. */
  private int journaled;
  private int journaledBefore;
  /** The last checkpoint was not journaled: the next is tried at the next tick, not at every frame. */
  private boolean skipped;
  private long reservedThrough;
  private boolean writing;
  private long lastNanos = System.nanoTime();

  Checkpoints(SessionSettings.Checkpoint settings, int runs, long reservedThrough) {
    this.settings = settings;
    this.runs = runs;
    this.reservedThrough = reservedThrough;
  }

  /** The highest frame id that may be sent to clients now. */
  long reservedThrough() {
    return reservedThrough;
  }

  /**
   * The next checkpoint when one is due: none is being written, frames are waiting, and the
   * interval's frames or time have passed ({@code tick}: the timer's call), or the reserve is running out.
   */
  Optional<TurnProgress.Checkpoint> due(Transcript transcript, boolean tick, RunOutcome[] ended) {
    int waiting = transcript.recorded() - journaled;
    if (writing || waiting == 0 || (skipped && !tick)) {
      return Optional.empty();
    }
    boolean intervalPassed = System.nanoTime() - lastNanos >= settings.interval().toNanos();
    boolean reserveLow = transcript.nextId() > reservedThrough;
    if (waiting < settings.frames() && !(tick && intervalPassed) && !reserveLow) {
      return Optional.empty();
    }
    writing = true;
    lastNanos = System.nanoTime();
    TurnProgress.Checkpoint checkpoint = checkpoint(transcript, ended);
    journaledBefore = journaled;
    journaled = transcript.recorded();
    return Optional.of(checkpoint);
  }

  /** The journal has the checkpoint: the ids it reserved may be sent. Returns the old limit. */
  long journaled(long newReservation) {
    long previous = reservedThrough;
    reservedThrough = Math.max(reservedThrough, newReservation);
    writing = false;
    skipped = false;
    return previous;
  }

  /** The checkpoint was not journaled: the next one, at the next tick at the earliest, takes its frames again. */
  void skipped() {
    skipped = true;
    writing = false;
    journaled = journaledBefore;
  }

  Duration interval() {
    return settings.interval();
  }

  private TurnProgress.Checkpoint checkpoint(Transcript transcript, RunOutcome[] ended) {
    List<FrameMark> marks = transcript.marksFrom(journaled);
    List<TurnFrame> frames = transcript.framesFrom(journaled);
    StringBuilder[] texts = new StringBuilder[runs];
    for (int run = 0; run < runs; run++) {
      texts[run] = new StringBuilder();
    }
    List<RunOutcome> endedRuns = new ArrayList<>();
    List<Citation> citations = List.of();
    double confidence = 0;
    List<Gap> gaps = new ArrayList<>();
    for (int i = 0; i < marks.size(); i++) {
      FrameMark mark = marks.get(i);
      switch (frames.get(i).event()) {
        case StreamEvent.Token token -> texts[mark.run()].append(token.text());
        case StreamEvent.Retrieved retrieved -> {
          citations = retrieved.citations();
          confidence = retrieved.confidence();
        }
        case StreamEvent.GapFound gap -> gaps.add(gap.gap());
        case StreamEvent.RunCompleted completed -> endedRuns.add(completed.run());
        case StreamEvent.RunFailed failed -> endedRuns.add(ended[mark.run()]);
        default -> { }
      }
    }
    long lastId = frames.isEmpty() ? transcript.nextId() - 1 : frames.getLast().id();
    return new TurnProgress.Checkpoint(marks, List.of(texts).stream().map(StringBuilder::toString).toList(),
        endedRuns, citations, confidence, gaps, lastId + settings.reserve());
  }
}
