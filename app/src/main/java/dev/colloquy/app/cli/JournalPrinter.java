package dev.colloquy.app.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.http.Json;
import dev.colloquy.persistence.JournalEntry;
import java.io.PrintWriter;
import java.util.List;
import java.util.stream.Collectors;

/** The text form of {@code colloquy replay}: one line per event with its key fields, then the state. */
final class JournalPrinter {

  private static final int QUOTE = 60;

  private JournalPrinter() {}

  static void print(String sessionId, List<JournalEntry> entries, JsonNode state, PrintWriter out)
      throws JsonProcessingException {
    out.printf("Session %s: %d events (sequence numbers %d..%d)%n%n", sessionId, entries.size(),
        entries.getFirst().sequenceNr(), entries.getLast().sequenceNr());
    out.printf("%-5s %-24s %-21s %s%n", "SEQ", "TIME", "EVENT", "DETAILS");
    for (JournalEntry entry : entries) {
      out.printf("%-5d %-24s %-21s %s%n", entry.sequenceNr(), entry.writtenAt(),
          entry.event().getClass().getSimpleName(), details(entry.event()));
    }
    out.printf("%nState at sequence number %d:%n", entries.getLast().sequenceNr());
    out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(state));
  }

  static String details(ChatSession.Event event) {
    return switch (event) {
      case ChatSession.SessionOpened e -> "tenant=" + e.tenantId() + " persona=" + quote(e.persona());
      case ChatSession.SessionRenamed e -> "title=" + quote(e.title());
      case ChatSession.TurnAccepted e -> "turn=" + e.turnId() + " models="
          + e.runs().stream().map(run -> run.model()).toList() + " message=" + quote(e.message());
      case ChatSession.TurnCompleted e -> "turn=" + e.turnId() + agent(e.outcome().agent()) + " runs=" + runs(e.outcome().runs())
          + tools(e.outcome().tools()) + " citations=" + e.outcome().citations().size() + " latency_ms=" + e.outcome().latencyMs()
          + " text=" + quote(e.outcome().text());
      case ChatSession.TurnFailed e -> "turn=" + e.turnId() + " code=" + e.code() + " message=" + quote(e.message());
      case ChatSession.TurnCancelled e -> "turn=" + e.turnId() + " reason=" + e.reason()
          + (e.outcome().runs().isEmpty() ? "" : " runs=" + runs(e.outcome().runs()));
      case ChatSession.NarrativeStateMerged e -> "delta=" + e.delta();
      case ChatSession.TurnCheckpointed e -> "turn=" + e.turnId() + " frames=" + e.checkpoint().frames().size()
          + " reserved_through=" + e.checkpoint().reservedThrough();
      case ChatSession.TurnRestarted e -> "turn=" + e.turnId() + " reason=" + e.cutShort().reason()
          + " restart_frame=" + e.cutShort().restartFrameId() + " models="
          + e.runs().stream().map(run -> run.model()).toList();
      case ChatSession.SessionClosed e -> "reason=" + e.reason() + " turns=" + e.summary().turns()
          + " duration_ms=" + e.summary().durationMs();
      case ChatSession.SessionReopened e -> "turn=" + e.turnId();
      case ChatSession.SessionForked e -> "from=" + e.fromSessionId() + " at_turn=" + e.atTurn() + " inherited_turns="
          + e.turns().size();
      case ChatSession.SessionDeleted e -> "";
      case ChatSession.SessionEscalated e -> "turn=" + e.turnId() + " reason=" + e.reason().wireName();
      case ChatSession.SessionHandedBack e -> "";
      case ChatSession.HistorySummarized e -> "turn=" + e.turnId() + " covers=" + e.summary().coveredMessages()
          + " messages by=" + e.summary().source() + " summary=" + quote(e.summary().text());
    };
  }

  /** Why the agent did what it did: how it routed the message, whether it escalated or only forwarded it. */
  private static String agent(AgentTrace agent) {
    if (agent == null) {
      return "";
    }
    if (agent.handoff()) {
      return " handoff=forwarded";
    }
    return " intent=" + agent.intent().wireName() + "(" + agent.intentSource() + ")"
        + (agent.escalation() == null ? "" : " escalation=" + agent.escalation().wireName())
        + (agent.memories().isEmpty() ? "" : " memories=" + agent.memories().size())
        + (agent.gapsBy() == null ? "" : " gaps_by=" + agent.gapsBy());
  }

  /** Each tool call of the turn with how it ended, e.g. {@code tools=[knowledge_retrieval:ok, web_search:error]}. */
  private static String tools(List<StreamEvent.ToolEvent> tools) {
    if (tools.isEmpty()) {
      return "";
    }
    return " tools=" + tools.stream().filter(StreamEvent.ToolResulted.class::isInstance)
        .map(StreamEvent.ToolResulted.class::cast)
        .map(result -> result.tool() + ":" + (result.ok() ? "ok" : "error"))
        .collect(Collectors.joining(", ", "[", "]"));
  }

  private static String runs(List<RunOutcome> runs) {
    return runs.stream()
        .map(run -> run.model() + ":" + run.status().name().toLowerCase()
            + (run.errorCode() == null ? "" : "(" + run.errorCode() + ")")
            + " " + run.usage().totalTokens() + "tok")
        .collect(Collectors.joining(", ", "[", "]"));
  }

  private static String quote(String text) {
    if (text == null) {
      return "-";
    }
    String line = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\"", "\\\"");
    return "\"" + (line.length() > QUOTE ? line.substring(0, QUOTE) + "…" : line) + "\"";
  }
}
