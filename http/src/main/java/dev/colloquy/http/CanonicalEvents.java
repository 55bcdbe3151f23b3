package dev.colloquy.http;

import dev.colloquy.engine.turn.Citation;
import dev.colloquy.engine.turn.Gap;
import dev.colloquy.engine.turn.RunOutcome;
import dev.colloquy.engine.turn.TurnEvent;
import dev.colloquy.engine.turn.TurnFrame;
import dev.colloquy.engine.turn.Usage;
import java.util.List;

/**
 * The canonical SSE events of API.md: a name and a one-line JSON object per turn frame. Every data
 * object begins with the session, turn and trace ids; the values inside (usage, citations, runs)
 * are the same records in a turn's JSON answer and a session's messages.
 */
public final class CanonicalEvents {

  private CanonicalEvents() {}

  record UsageJson(long promptTokens, long completionTokens, long totalTokens, double costUsd) {
    static UsageJson toApi(Usage usage) {
      return new UsageJson(usage.promptTokens(), usage.completionTokens(), usage.totalTokens(), usage.costUsd());
    }
  }

  record CitationJson(String documentId, String source, String section, int chunkIndex, double score) {
    static List<CitationJson> toApi(List<Citation> citations) {
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

  record RunFailed(String sessionId, String turnId, String traceId, String runId, String code, String message) {}

  record TurnCompleted(String sessionId, String turnId, String traceId, String messageId, String text,
      long latencyMs, UsageJson usage) {}

  record TurnFailed(String sessionId, String turnId, String traceId, String code, String message) {}

  record TurnCancelled(String sessionId, String turnId, String traceId, String reason) {}

  public static String name(TurnEvent event) {
    return switch (event) {
      case TurnEvent.Started e -> "turn.started";
      case TurnEvent.Retrieved e -> "retrieval";
      case TurnEvent.Token e -> "token";
      case TurnEvent.GapFound e -> "gap";
      case TurnEvent.RunCompleted e -> "run.completed";
      case TurnEvent.RunFailed e -> "run.failed";
      case TurnEvent.Completed e -> "turn.completed";
      case TurnEvent.Failed e -> "turn.failed";
      case TurnEvent.Cancelled e -> "turn.cancelled";
    };
  }

  /** The event's data object, a record whose components are its fields in wire order. */
  public static Record data(TurnFrame frame) {
    String session = frame.sessionId();
    String turn = frame.turnId();
    String trace = frame.traceId();
    return switch (frame.event()) {
      case TurnEvent.Started e -> new Started(session, turn, trace, e.runIds());
      case TurnEvent.Retrieved e ->
          new Retrieval(session, turn, trace, CitationJson.toApi(e.citations()), e.confidence());
      case TurnEvent.Token e -> new Token(session, turn, trace, e.text(), e.runId());
      case TurnEvent.GapFound e -> new GapFound(session, turn, trace, e.gap().attribute(), e.gap().suggestion());
      case TurnEvent.RunCompleted e -> {
        RunOutcome run = e.run();
        yield new RunCompleted(session, turn, trace, run.runId(), run.provider(), run.model(), run.text(),
            UsageJson.toApi(run.usage()), run.latencyMs());
      }
      case TurnEvent.RunFailed e -> new RunFailed(session, turn, trace, e.runId(), e.code(), e.message());
      case TurnEvent.Completed e ->
          new TurnCompleted(session, turn, trace, e.messageId(), e.text(), e.latencyMs(), UsageJson.toApi(e.usage()));
      case TurnEvent.Failed e -> new TurnFailed(session, turn, trace, e.code(), e.message());
      case TurnEvent.Cancelled e -> new TurnCancelled(session, turn, trace, e.reason());
    };
  }
}
