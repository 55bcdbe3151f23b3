package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.util.List;

/**
 * A turn's frames as the Support agent's message stream sends them: unnamed events whose data is
 * {@code {"delta", "done": false}} per token, then {@code {"done": true, "metadata"}} with what the
 * JSON answer carries besides its text; a turn that fails or is cancelled ends with
 * {@code {"done": true, "error": {"code", "message"}}}, as does one whose answer a restart on another
 * node superseded after part of it was sent ({@code TURN_RESTARTED}, see {@link AnsweringRun}).
 */
final class SupportFrames implements TurnFrames.Translator<Object> {

  record Delta(String delta, boolean done) {}

  record Done(boolean done, SupportAnswer metadata) {}

  record Failed(boolean done, Problem error) {}

  record Problem(String code, String message) {}

  private final AnsweringRun answering = new AnsweringRun();
  private StreamEvent.Retrieved retrieved;
  private StreamEvent.Escalated escalated;

  @Override
  public List<Object> next(TurnFrame frame) {
    if (answering.superseded()) {
      return List.of();
    }
    return switch (frame.event()) {
      case StreamEvent.Started started -> {
        answering.started(started.runIds());
        yield List.of();
      }
      case StreamEvent.Retrieved found -> {
        retrieved = found;
        yield List.of();
      }
      case StreamEvent.Token token -> answering.answers(token) ? List.of(new Delta(token.text(), false)) : List.of();
      case StreamEvent.Restarted restarted -> answering.restarted(restarted)
          ? List.of(new Failed(true, new Problem(AnsweringRun.RESTARTED, AnsweringRun.RESTARTED_MESSAGE))) : List.of();
      case StreamEvent.GapFound gap -> List.of();
      case StreamEvent.RunCompleted run -> List.of();
      case StreamEvent.RunFailed run -> List.of();
      // The agent's decisions have no frame in this seed's contract; an escalation shows in the metadata.
      case StreamEvent.IntentRouted routed -> List.of();
      case StreamEvent.Escalated handed -> {
        escalated = handed;
        yield List.of();
      }
      case StreamEvent.ToolEvent tool -> List.of();
      case TurnEnding.Completed completed -> List.of(new Done(true, SupportAnswer.of(retrieved, escalated, completed)));
      case TurnEnding.Failed failed -> List.of(new Failed(true, new Problem(failed.code(), failed.message())));
      case TurnEnding.Cancelled cancelled ->
          List.of(new Failed(true, new Problem("TURN_CANCELLED", "The turn was cancelled: " + cancelled.reason())));
    };
  }
}
