package dev.colloquy.engine.observe;

import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnOutcome;
import java.time.Duration;

/** The figures of one ended turn: its latency and outcome, the tokens of each run and agent call, and failure codes. */
public final class TurnMetrics {

  private TurnMetrics() {}

  public static void recordEnded(EngineMetrics metrics, TurnEnding ending, TurnOutcome outcome) {
    if (ending instanceof TurnEnding.Failed failed) {
      metrics.error("turn", failed.code());
    }
    metrics.turnEnded(ending.status().name().toLowerCase(), Duration.ofMillis(outcome.latencyMs()));
    if (outcome.agent() != null && outcome.agent().intent() != null) {
      metrics.intentRouted(outcome.agent().intent().wireName());
    }
    if (outcome.escalated()) {
      metrics.escalated(outcome.agent().escalation().wireName());
    }
    for (AgentCall call : outcome.agentCalls()) {
      metrics.tokens(call.model(), call.usage().promptTokens(), call.usage().completionTokens());
    }
    for (RunOutcome run : outcome.runs()) {
      metrics.tokens(run.model(), run.usage().promptTokens(), run.usage().completionTokens());
      if (run.status() == RunOutcome.Status.FAILED && run.errorCode() != null) {
        metrics.error("run", run.errorCode());
      }
    }
  }

  /** A turn that never ran to its end (interrupted by a crash or a journal failure). */
  public static void recordFailed(EngineMetrics metrics, String code) {
    metrics.error("turn", code);
  }
}
