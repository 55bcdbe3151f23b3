package dev.colloquy.engine.turn;

import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.Usage;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's own model calls of one turn (routing, extraction, …), priced as runs are priced
 * (the price of their provider's model), so that the turn's journaled trace bills them beside its runs.
 * The turn's checkpoints carry them too, each call once, so that an attempt cut short by a lost node
 * is billed for the calls it made.
 */
final class AgentCalls {

  private final LlmSettings llm;
  private final List<AgentCall> calls = new ArrayList<>();
  /** How many of the calls journaled checkpoints carry, and how many the one being written carries. */
  private int checkpointed;
  private int checkpointing;

  AgentCalls(LlmSettings llm) {
    this.llm = llm;
  }

  /** Adds {@code call} with its cost; null (no call answered) adds nothing. */
  void add(AgentCall call) {
    if (call == null) {
      return;
    }
    Usage usage = call.usage();
    double cost = llm.priceOf(call.provider(), call.model()).cost(usage.promptTokens(), usage.completionTokens());
    calls.add(new AgentCall(call.step(), call.provider(), call.model(),
        new Usage(usage.promptTokens(), usage.completionTokens(), cost)));
  }

  List<AgentCall> list() {
    return List.copyOf(calls);
  }

  /** The calls no journaled checkpoint carries yet, for the checkpoint about to be written. */
  List<AgentCall> forCheckpoint() {
    checkpointing = calls.size();
    return List.copyOf(calls.subList(checkpointed, checkpointing));
  }

  /** The checkpoint written last is journaled: its calls are not to be carried again. */
  void checkpointJournaled() {
    checkpointed = checkpointing;
  }
}
