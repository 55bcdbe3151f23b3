package dev.colloquy.engine.turn;

import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.Usage;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's own model calls of one turn (routing, extraction, …), priced as runs are priced
 * (the price of their provider's model), so that the turn's journaled trace bills them beside its runs.
 */
final class AgentCalls {

  private final LlmSettings llm;
  private final List<AgentCall> calls = new ArrayList<>();

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
}
