package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;
import java.util.List;

/**
 * Why the agent did what it did in one turn, journaled with the turn's outcome so that a replay
 * shows it: how the message was routed and by whom ({@code model} or {@code offline}), whether the
 * turn escalated the session, whether it only forwarded the message to a human (hand-off), the ids
 * of the user's memories it recalled into the prompt, and the facts it noted about the user
 * afterwards. Turns journaled before the agent existed have none.
 */
public record AgentTrace(
    Intent intent,
    String intentSource,
    EscalationReason escalation,
    boolean handoff,
    List<String> recalled,
    List<String> memories)
    implements CborSerializable {

  public static final String BY_MODEL = "model";
  public static final String OFFLINE = "offline";

  public AgentTrace {
    recalled = recalled == null ? List.of() : List.copyOf(recalled);
    memories = memories == null ? List.of() : List.copyOf(memories);
  }

  /** A turn of a session in hand-off: the message went to a human, the agent decided nothing. */
  public static AgentTrace handedOff() {
    return new AgentTrace(null, null, null, true, List.of(), List.of());
  }


}
