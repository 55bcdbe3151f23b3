package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.util.List;

/**
 * What the Support agent contract says about an answered message besides its text: the retrieval's
 * confidence, the sources with their chunk ids, whether it needs a human, and how long it took. A
 * message needs a human when the agent's escalation rules handed the session to one in this turn
 * ({@code escalation_reason} is then the rule's name, {@code low_retrieval_confidence}, …).
 */
record SupportAnswer(String messageId, Double confidence, List<Source> sources, boolean escalationRequired,
    String escalationReason, long latencyMs) {

  record Source(String chunkId, String document, String section) {

    static List<Source> of(List<Citation> citations) {
      return citations.stream().map(c -> new Source(c.chunkId(), c.source(), c.section())).toList();
    }
  }

  /** What the frames before the turn's end said (its retrieval, its escalation), and how it completed. */
  static SupportAnswer of(StreamEvent.Retrieved retrieved, StreamEvent.Escalated escalated,
      TurnEnding.Completed completed) {
    return new SupportAnswer(completed.messageId(), retrieved == null ? null : retrieved.confidence(),
        retrieved == null ? List.of() : Source.of(retrieved.citations()), escalated != null,
        escalated == null ? null : escalated.reason().wireName(), completed.latencyMs());
  }

  /** The answer a completed turn's frames make. */
  static SupportAnswer of(List<TurnFrame> frames, TurnEnding.Completed completed) {
    return of(first(frames, StreamEvent.Retrieved.class), first(frames, StreamEvent.Escalated.class), completed);
  }

  private static <T> T first(List<TurnFrame> frames, Class<T> type) {
    return frames.stream().map(TurnFrame::event).filter(type::isInstance).map(type::cast).findFirst().orElse(null);
  }
}
