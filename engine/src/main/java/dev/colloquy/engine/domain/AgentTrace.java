package dev.colloquy.engine.domain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.CborSerializable;
import java.util.List;

/**
 * Why the agent did what it did in one turn, journaled with the turn's outcome so that a replay
 * shows it: how the message was routed and by whom ({@code model} or {@code offline}), whether the
 * turn escalated the session, whether it only forwarded the message to a human (hand-off), the ids
 * of the user's memories it recalled into the prompt, the facts it noted about the user afterwards,
 * its own model calls ({@code calls}: routing, extraction, …, billed with the turn; none in turns
 * journaled before they were), and the language the message was detected in ({@code language}, an
 * ISO 639-1 code; null when unknown or not detected). {@code gapsBy} says who detected the turn's gaps
 * ({@code model}: the narrative gap sub-agent; {@code rule}: the retrieval confidence rule; null when
 * no gap detection ran, and in turns journaled before it was recorded), and {@code characterTraits}
 * are the narrative state updates the sub-agent's structured answer gave (null when none). Turns
 * journaled before the agent existed have no trace.
 */
public record AgentTrace(
    Intent intent,
    String intentSource,
    EscalationReason escalation,
    boolean handoff,
    List<String> recalled,
    List<String> memories,
    List<AgentCall> calls,
    String language,
    String gapsBy,
    JsonNode characterTraits)
    implements CborSerializable {

  public static final String BY_MODEL = "model";
  public static final String OFFLINE = "offline";
  /** Gaps found by the retrieval confidence rule. */
  public static final String BY_RULE = "rule";

  /** A trace of a turn in which no gap detection was recorded. */
  public AgentTrace(Intent intent, String intentSource, EscalationReason escalation, boolean handoff,
      List<String> recalled, List<String> memories, List<AgentCall> calls, String language) {
    this(intent, intentSource, escalation, handoff, recalled, memories, calls, language, null, null);
  }

  public AgentTrace {
    recalled = recalled == null ? List.of() : List.copyOf(recalled);
    memories = memories == null ? List.of() : List.copyOf(memories);
    calls = calls == null ? List.of() : List.copyOf(calls);
    // A JSON null read back from the journal is no traits, as the Java null written.
    characterTraits = characterTraits == null || characterTraits.isNull() || characterTraits.isMissingNode()
        ? null : characterTraits;
  }

  /** A trace without model calls of the agent's own and without a detected language. */
  public AgentTrace(Intent intent, String intentSource, EscalationReason escalation, boolean handoff,
      List<String> recalled, List<String> memories) {
    this(intent, intentSource, escalation, handoff, recalled, memories, List.of(), null, null, null);
  }

  /** What the agent's own model calls used, all together. */
  public Usage callUsage() {
    return calls.stream().map(AgentCall::usage).reduce(Usage.NONE, Usage::plus);
  }

  /** A turn of a session in hand-off: the message went to a human, the agent decided nothing. */
  public static AgentTrace handedOff() {
    return new AgentTrace(null, null, null, true, List.of(), List.of(), List.of(), null, null, null);
  }
}
