package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.util.List;

/**
 * What the Support agent contract says about an answered message besides its text: the retrieval's
 * confidence, the sources with their chunk ids, whether it needs a human, and how long it took. A
 * turn needs a human when the engine's escalation rules handed its session to one: the turn's
 * {@code Escalated} frame gives the reason.
 */
record SupportAnswer(String messageId, Double confidence, List<Source> sources, boolean escalationRequired,
    String escalationReason, long latencyMs) {

  record Source(String chunkId, String document, String section) {

    static List<Source> of(List<Citation> citations) {
      return citations.stream().map(c -> new Source(c.chunkId(), c.source(), c.section())).toList();
    }
  }

  /** What the frames before the turn's end said (its retrieval and escalation, if any), and how it completed. */
  static SupportAnswer of(StreamEvent.Retrieved retrieved, StreamEvent.Escalated escalated,
      TurnEnding.Completed completed) {
    return new SupportAnswer(completed.messageId(), retrieved == null ? null : retrieved.confidence(),
        retrieved == null ? List.of() : Source.of(retrieved.citations()), escalated != null,
        escalated == null ? null : escalated.reason().wireName(), completed.latencyMs());
  }

  /** The retrieval among a turn's frames, if it had one. */
  static StreamEvent.Retrieved retrieval(List<TurnFrame> frames) {
    return frames.stream().map(TurnFrame::event).filter(StreamEvent.Retrieved.class::isInstance)
        .map(StreamEvent.Retrieved.class::cast).findFirst().orElse(null);
  }

  /** The escalation among a turn's frames, if the turn handed its session to a human. */
  static StreamEvent.Escalated escalation(List<TurnFrame> frames) {
    return frames.stream().map(TurnFrame::event).filter(StreamEvent.Escalated.class::isInstance)
        .map(StreamEvent.Escalated.class::cast).findFirst().orElse(null);
  }
}
