package dev.colloquy.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.Usage;
import java.util.List;

/**
 * The canonical SSE events of API.md: a name and a one-line JSON object per turn frame. Every data
 * object begins with the session, turn and trace ids; the values inside (usage, citations, runs)
 * are the same records in a turn's JSON answer and a session's messages.
 */
public final class CanonicalEvents {

  private CanonicalEvents() {}

  /**
   * {@code estimated}: counted by Colloquy because the provider reported no usage; absent where it is
   * not known (the session list's totals).
   */
  record UsageJson(long promptTokens, long completionTokens, long totalTokens, double costUsd,
      @JsonInclude(JsonInclude.Include.NON_NULL) Boolean estimated) {
    static UsageJson toApi(Usage usage) {
      return new UsageJson(usage.promptTokens(), usage.completionTokens(), usage.totalTokens(), usage.costUsd(),
          usage.estimated());
    }
  }

  public record CitationJson(String documentId, String source, String section, int chunkIndex, double score) {
    public static List<CitationJson> toApi(List<Citation> citations) {
      return citations.stream()
          .map(c -> new CitationJson(c.documentId(), c.source(), c.section(), c.chunkIndex(), c.score()))
          .toList();
    }
  }

  record GapJson(String attribute, String suggestion) {
    static GapJson toApi(Gap gap) {
      return new GapJson(gap.attribute(), gap.suggestion());
    }
  }

  record Started(String sessionId, String turnId, String traceId, List<String> runIds) {}

  record Retrieval(String sessionId, String turnId, String traceId, List<CitationJson> citations, double confidence) {}

  record Token(String sessionId, String turnId, String traceId, String text, String runId) {}

  record GapFound(String sessionId, String turnId, String traceId, String attribute, String suggestion) {}

  record RunCompleted(String sessionId, String turnId, String traceId, String runId, String provider, String model,
      String text, UsageJson usage, long latencyMs) {}

  record RunFailed(String sessionId, String turnId, String traceId, String runId, String provider, String model,
      String code, String message) {}

  record TurnRestarted(String sessionId, String turnId, String traceId, List<String> runIds, String reason) {}

  /** {@code language}: the ISO 639-1 code the message was detected in, null when unknown. */
  record IntentRouted(String sessionId, String turnId, String traceId, String intent, String language) {}

  record Escalated(String sessionId, String turnId, String traceId, String reason) {}

  record ToolCalled(String sessionId, String turnId, String traceId, String runId, String callId, String tool,
      String arguments) {}

  record ToolResult(String sessionId, String turnId, String traceId, String runId, String callId, String tool,
      boolean ok, String content, long latencyMs) {}

  record TurnCompleted(String sessionId, String turnId, String traceId, String messageId, String text,
      long latencyMs, UsageJson usage) {}

  record TurnFailed(String sessionId, String turnId, String traceId, String code, String message) {}

  record TurnCancelled(String sessionId, String turnId, String traceId, String reason) {}

  public static String name(StreamEvent event) {
    return switch (event) {
      case StreamEvent.Started e -> "turn.started";
      case StreamEvent.Retrieved e -> "retrieval";
      case StreamEvent.Token e -> "token";
      case StreamEvent.GapFound e -> "gap";
      case StreamEvent.RunCompleted e -> "run.completed";
      case StreamEvent.RunFailed e -> "run.failed";
      case StreamEvent.Restarted e -> "turn.restarted";
      case StreamEvent.IntentRouted e -> "intent";
      case StreamEvent.Escalated e -> "escalation";
      case StreamEvent.ToolCalled e -> "tool.called";
      case StreamEvent.ToolResulted e -> "tool.result";
      case TurnEnding.Completed e -> "turn.completed";
      case TurnEnding.Failed e -> "turn.failed";
      case TurnEnding.Cancelled e -> "turn.cancelled";
    };
  }

  /** The event's data object, a record whose components are its fields in wire order. */
  public static Record data(TurnFrame frame) {
    String session = frame.sessionId();
    String turn = frame.turnId();
    String trace = frame.traceId();
    return switch (frame.event()) {
      case StreamEvent.Started e -> new Started(session, turn, trace, e.runIds());
      case StreamEvent.Retrieved e ->
          new Retrieval(session, turn, trace, CitationJson.toApi(e.citations()), e.confidence());
      case StreamEvent.Token e -> new Token(session, turn, trace, e.text(), e.runId());
      case StreamEvent.GapFound e -> new GapFound(session, turn, trace, e.gap().attribute(), e.gap().suggestion());
      case StreamEvent.RunCompleted e -> {
        RunOutcome run = e.run();
        yield new RunCompleted(session, turn, trace, run.runId(), run.provider(), run.model(), run.text(),
            UsageJson.toApi(run.usage()), run.latencyMs());
      }
      case StreamEvent.RunFailed e ->
          new RunFailed(session, turn, trace, e.runId(), e.provider(), e.model(), e.code(), e.message());
      case StreamEvent.Restarted e -> new TurnRestarted(session, turn, trace, e.runIds(), e.reason());
      case StreamEvent.IntentRouted e -> new IntentRouted(session, turn, trace, e.intent().wireName(), e.language());
      case StreamEvent.Escalated e -> new Escalated(session, turn, trace, e.reason().wireName());
      case StreamEvent.ToolCalled e -> new ToolCalled(session, turn, trace, e.runId(), e.callId(), e.tool(), e.arguments());
      case StreamEvent.ToolResulted e ->
          new ToolResult(session, turn, trace, e.runId(), e.callId(), e.tool(), e.ok(), e.content(), e.latencyMs());
      case TurnEnding.Completed e ->
          new TurnCompleted(session, turn, trace, e.messageId(), e.text(), e.latencyMs(), UsageJson.toApi(e.usage()));
      case TurnEnding.Failed e -> new TurnFailed(session, turn, trace, e.code(), e.message());
      case TurnEnding.Cancelled e -> new TurnCancelled(session, turn, trace, e.reason());
    };
  }
}
