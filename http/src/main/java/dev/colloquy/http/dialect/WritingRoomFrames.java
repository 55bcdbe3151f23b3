package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.util.ArrayList;
import java.util.List;

/**
 * A turn's frames as the Writing Room's {@code POST /chat/stream} sends them, in its order: every
 * {@code token}, then a {@code citation} per passage, a {@code gap} per gap, and {@code done}; or an
 * {@code error} when the turn fails or is cancelled, or {@code TURN_RESTARTED} when another node runs
 * it again after part of the answer was sent ({@link AnsweringRun}). The engine finds citations and gaps before the
 * answer starts; this contract sends them after it, so they are held until the turn has ended.
 */
final class WritingRoomFrames implements TurnFrames.Translator<WritingRoomFrames.Event> {

  /** A frame's event name and data. */
  record Event(String name, Object data) {}

  record TokenData(String text) {}

  record CitationData(String source, int chunkIndex) {}

  record GapData(String attribute, String suggestion) {}

  record DoneData(String chatId) {}

  record ErrorData(String code, String message) {}

  private final String chatId;
  private final List<Citation> citations = new ArrayList<>();
  private final List<Gap> gaps = new ArrayList<>();
  /** The run whose tokens are the answer: a chat turn has one. */
  private final AnsweringRun answering = new AnsweringRun();

  WritingRoomFrames(String chatId) {
    this.chatId = chatId;
  }

  @Override
  public List<Event> next(TurnFrame frame) {
    if (answering.superseded()) {
      return List.of();
    }
    return switch (frame.event()) {
      case StreamEvent.Started started -> {
        answering.started(started.runIds());
        yield List.of();
      }
      case StreamEvent.Retrieved retrieved -> {
        citations.addAll(retrieved.citations());
        yield List.of();
      }
      case StreamEvent.GapFound found -> {
        gaps.add(found.gap());
        yield List.of();
      }
      case StreamEvent.Token token -> answering.answers(token)
          ? List.of(new Event("token", new TokenData(token.text()))) : List.of();
      case StreamEvent.Restarted restarted -> answering.restarted(restarted)
          ? List.of(new Event("error", new ErrorData(AnsweringRun.RESTARTED, AnsweringRun.RESTARTED_MESSAGE)))
          : List.of();
      case StreamEvent.RunCompleted completed -> List.of();
      case StreamEvent.RunFailed failed -> List.of();
      // The agent's decisions have no frame in this seed's contract.
      case StreamEvent.IntentRouted routed -> List.of();
      case StreamEvent.Escalated escalated -> List.of();
      case StreamEvent.ToolEvent tool -> List.of();
      case TurnEnding.Completed completed -> completed();
      case TurnEnding.Failed failed -> List.of(new Event("error", new ErrorData(failed.code(), failed.message())));
      case TurnEnding.Cancelled cancelled -> List.of(new Event("error",
          new ErrorData("TURN_CANCELLED", "The turn was cancelled: " + cancelled.reason())));
    };
  }

  private List<Event> completed() {
    List<Event> events = new ArrayList<>();
    citations.forEach(c -> events.add(new Event("citation", new CitationData(c.source(), c.chunkIndex()))));
    gaps.forEach(g -> events.add(new Event("gap", new GapData(g.attribute(), g.suggestion()))));
    events.add(new Event("done", new DoneData(chatId)));
    return events;
  }
}
