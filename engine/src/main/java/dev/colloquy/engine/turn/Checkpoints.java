package dev.colloquy.engine.turn;

import dev.colloquy.config.SessionSettings;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A running turn's checkpoints: when the next one is due (every so many frames, signalled by the
 * transcript from the appending thread, or at the supervisor's timer tick, one at a time), what it
 * journals (the frames since the last one), and how far the turn's readers may read meanwhile. A
 * frame reaches a reader only once a journaled checkpoint has reserved its id, so after a crash the
 * journal bounds what any client can have seen: the next node knows which ids are taken and how much
 * was lost (at most the reserve, usually less than one interval, since the next checkpoint is
 * normally journaled long before the reserve runs out).
 */
final class Checkpoints {

  private final SessionSettings.Checkpoint settings;
  private final Transcript transcript;
  private final Runnable frameSignal;
  /** The frames of this attempt the journal has (or is being given) so far. */
  private int journaled;
  private int journaledBefore;
  /** The last checkpoint was not journaled: the next is tried at the next tick, not at the next signal. */
  private boolean skipped;
  private boolean writing;

  /** {@code frameSignal} is run from the appending thread when the interval's frames have been recorded. */
  Checkpoints(SessionSettings.Checkpoint settings, Transcript transcript, Runnable frameSignal) {
    this.settings = settings;
    this.transcript = transcript;
    this.frameSignal = frameSignal;
    transcript.signalAt(settings.frames(), frameSignal);
  }

  /**
   * The next checkpoint when one is due: none is being written, frames are waiting, and the
   * interval's frames have been recorded, or its time has passed ({@code tick}), or frames are held
   * back beyond the reservation.
   */
  Optional<TurnProgress.Checkpoint> due(boolean tick, RunOutcome[] ended) {
    if (writing || (skipped && !tick)) {
      return Optional.empty();
    }
    List<TurnFrame> waiting = transcript.recordedFrom(journaled);
    if (waiting.isEmpty()) {
      return Optional.empty();
    }
    boolean heldBack = waiting.getLast().id() > transcript.released();
    if (waiting.size() < settings.frames() && !tick && !heldBack) {
      return Optional.empty();
    }
    writing = true;
    journaledBefore = journaled;
    journaled += waiting.size();
    transcript.signalAt(journaled + settings.frames(), frameSignal);
    return Optional.of(checkpoint(waiting, ended));
  }

  /** The journal has the checkpoint: readers may read up to the ids it reserved. */
  void journaled(long reservedThrough) {
    writing = false;
    skipped = false;
    transcript.release(reservedThrough);
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

  private TurnProgress.Checkpoint checkpoint(List<TurnFrame> frames, RunOutcome[] ended) {
    List<String> runIds = transcript.runIds();
    StringBuilder[] texts = new StringBuilder[runIds.size()];
    for (int run = 0; run < texts.length; run++) {
      texts[run] = new StringBuilder();
    }
    List<RunOutcome> endedRuns = new ArrayList<>();
    List<Citation> citations = List.of();
    double confidence = 0;
    List<Gap> gaps = new ArrayList<>();
    Intent intent = null;
    String language = null;
    EscalationReason escalation = null;
    List<StreamEvent.ToolEvent> tools = new ArrayList<>();
    for (TurnFrame frame : frames) {
      switch (frame.event()) {
        case StreamEvent.Token token -> texts[runIds.indexOf(token.runId())].append(token.text());
        case StreamEvent.Retrieved retrieved -> {
          citations = retrieved.citations();
          confidence = retrieved.confidence();
        }
        case StreamEvent.GapFound gap -> gaps.add(gap.gap());
        case StreamEvent.RunCompleted completed -> endedRuns.add(completed.run());
        case StreamEvent.RunFailed failed -> endedRuns.add(ended[runIds.indexOf(failed.runId())]);
        case StreamEvent.IntentRouted routed -> {
          intent = routed.intent();
          language = routed.language();
        }
        case StreamEvent.Escalated escalated -> escalation = escalated.reason();
        case StreamEvent.ToolEvent tool -> tools.add(tool);
        default -> { }
      }
    }
    return new TurnProgress.Checkpoint(Transcript.layout(frames, runIds),
        java.util.Arrays.stream(texts).map(StringBuilder::toString).toList(), endedRuns, citations, confidence, gaps,
        frames.getLast().id() + settings.reserve(), intent, escalation, tools, language);
  }
}
