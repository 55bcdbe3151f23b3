package dev.colloquy.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.Usage;
import java.util.List;

/** The canonical SSE events of API.md: a name and a one-line JSON object per turn frame. */
public final class CanonicalEvents {

  private CanonicalEvents() {}

  public static String name(StreamEvent event) {
    return switch (event) {
      case StreamEvent.Started e -> "turn.started";
      case StreamEvent.Retrieved e -> "retrieval";
      case StreamEvent.Token e -> "token";
      case StreamEvent.GapFound e -> "gap";
      case StreamEvent.RunCompleted e -> "run.completed";
      case StreamEvent.RunFailed e -> "run.failed";
      case TurnEnding.Completed e -> "turn.completed";
      case TurnEnding.Failed e -> "turn.failed";
      case TurnEnding.Cancelled e -> "turn.cancelled";
    };
  }

  public static ObjectNode data(TurnFrame frame) {
    ObjectNode data = Json.MAPPER.createObjectNode();
    data.put("session_id", frame.sessionId());
    data.put("turn_id", frame.turnId());
    data.put("trace_id", frame.traceId());
    switch (frame.event()) {
      case StreamEvent.Started e -> strings(data.putArray("run_ids"), e.runIds());
      case StreamEvent.Retrieved e -> {
        citations(data.putArray("citations"), e.citations());
        data.put("confidence", e.confidence());
      }
      case StreamEvent.Token e -> data.put("text", e.text()).put("run_id", e.runId());
      case StreamEvent.GapFound e -> data.put("attribute", e.gap().attribute()).put("suggestion", e.gap().suggestion());
      case StreamEvent.RunCompleted e -> run(data, e.run());
      case StreamEvent.RunFailed e -> data.put("run_id", e.runId()).put("code", e.code()).put("message", e.message());
      case TurnEnding.Completed e -> {
        data.put("message_id", e.messageId()).put("text", e.text()).put("latency_ms", e.latencyMs());
        usage(data.putObject("usage"), e.usage());
      }
      case TurnEnding.Failed e -> data.put("code", e.code()).put("message", e.message());
      case TurnEnding.Cancelled e -> data.put("reason", e.reason());
    }
    return data;
  }

  static void run(ObjectNode data, RunOutcome run) {
    data.put("run_id", run.runId()).put("provider", run.provider()).put("model", run.model()).put("text", run.text());
    usage(data.putObject("usage"), run.usage());
    data.put("latency_ms", run.latencyMs());
  }

  static void usage(ObjectNode node, Usage usage) {
    node.put("prompt_tokens", usage.promptTokens())
        .put("completion_tokens", usage.completionTokens())
        .put("total_tokens", usage.totalTokens())
        .put("cost_usd", usage.costUsd());
  }

  static void citations(ArrayNode array, List<Citation> citations) {
    for (Citation citation : citations) {
      array.addObject()
          .put("document_id", citation.documentId())
          .put("source", citation.source())
          .put("section", citation.section())
          .put("chunk_index", citation.chunkIndex())
          .put("score", citation.score());
    }
  }

  private static void strings(ArrayNode array, List<String> values) {
    values.forEach(array::add);
  }
}
