package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.util.List;

/**
 * A turn's frames as the Edge contract's {@code POST /functions/v1/chat} sends them after its
 * {@code ready}: a {@code chat.delta} per token with a strictly increasing {@code seq}, then
 * {@code chat.done}; or an {@code error} with a lower-case code when the turn fails or is cancelled,
 * or {@code turn_restarted} when another node runs it again after part of the answer was sent
 * ({@link AnsweringRun}).
 * Every frame carries the trace id.
 */
final class EdgeFrames implements TurnFrames.Translator<EdgeFrames.Event> {

  record Event(String name, Object data) {

    boolean last() {
      return name.equals("chat.done") || name.equals("error");
    }
  }

  record Delta(String requestId, long seq, String delta, String traceId) {}

  record Done(String requestId, String messageId, Usage usage, String traceId, long totalMs) {}

  record Usage(long promptTokens, long completionTokens) {}

  record Problem(String code, String message, String traceId) {}

  private final String requestId;
  private final AnsweringRun answering = new AnsweringRun();
  private long seq;

  /** {@code requestId}: the caller's, or the turn's id when it sent none. */
  EdgeFrames(String requestId) {
    this.requestId = requestId;
  }

  @Override
  public List<Event> next(TurnFrame frame) {
    String traceId = frame.traceId();
    if (answering.superseded()) {
      return List.of();
    }
    return switch (frame.event()) {
      case StreamEvent.Started started -> {
        answering.started(started.runIds());
        yield List.of();
      }
      case StreamEvent.Token token -> answering.answers(token)
          ? List.of(new Event("chat.delta", new Delta(requestId, ++seq, token.text(), traceId))) : List.of();
      case StreamEvent.Restarted restarted -> answering.restarted(restarted)
          ? List.of(error(EdgeCodes.of(AnsweringRun.RESTARTED), AnsweringRun.RESTARTED_MESSAGE, traceId)) : List.of();
      case StreamEvent.Retrieved retrieved -> List.of();
      case StreamEvent.GapFound gap -> List.of();
      case StreamEvent.RunCompleted run -> List.of();
      case StreamEvent.RunFailed run -> List.of();
      // The agent's decisions have no frame in this seed's contract.
      case StreamEvent.IntentRouted routed -> List.of();
      case StreamEvent.Escalated escalated -> List.of();
      case StreamEvent.ToolEvent tool -> List.of();
      case TurnEnding.Completed completed -> List.of(new Event("chat.done", new Done(requestId, completed.messageId(),
          new Usage(completed.usage().promptTokens(), completed.usage().completionTokens()), traceId,
          completed.latencyMs())));
      case TurnEnding.Failed failed -> List.of(error(EdgeCodes.of(failed.code()), failed.message(), traceId));
      case TurnEnding.Cancelled cancelled ->
          List.of(error("cancelled", "The turn was cancelled: " + cancelled.reason(), traceId));
    };
  }

  static Event error(String code, String message, String traceId) {
    return new Event("error", new Problem(code, message, traceId));
  }
}
