package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a turn produced, journaled once when it ends: the runs, what retrieval found, the
 * gaps, the frame layout that lets its stream be replayed exactly (tokens grouped per run of
 * consecutive frames, however they were journaled: see {@link FrameMark}), and the agent's decisions
 * ({@code agent}, null for turns journaled before the agent decided anything), and the steps of the
 * runs' tool-calling loops ({@code tools}: each call and its result, in frame order; none in turns
 * journaled before tools existed).
 */
public record TurnOutcome(
    List<RunOutcome> runs,
    List<Citation> citations,
    double confidence,
    List<Gap> gaps,
    List<FrameMark> frames,
    long latencyMs,
    AgentTrace agent,
    List<StreamEvent.ToolEvent> tools)
    implements CborSerializable {

  public TurnOutcome {
    tools = tools == null ? List.of() : List.copyOf(tools);
    runs = List.copyOf(runs);
    citations = List.copyOf(citations);
    gaps = List.copyOf(gaps);
    frames = List.copyOf(FrameMark.grouped(frames));
  }

  /** An outcome in which no tool was called. */
  public TurnOutcome(List<RunOutcome> runs, List<Citation> citations, double confidence, List<Gap> gaps,
      List<FrameMark> frames, long latencyMs, AgentTrace agent) {
    this(runs, citations, confidence, gaps, frames, latencyMs, agent, List.of());
  }

  /** An outcome in which the agent decided nothing. */
  public TurnOutcome(List<RunOutcome> runs, List<Citation> citations, double confidence, List<Gap> gaps,
      List<FrameMark> frames, long latencyMs) {
    this(runs, citations, confidence, gaps, frames, latencyMs, null);
  }

  /** Whether the turn handed its session to a human. */
  public boolean escalated() {
    return agent != null && agent.escalation() != null;
  }

  /** What a turn that never ran (interrupted by a crash, cancelled while queued) leaves behind. */
  public static TurnOutcome nothing() {
    return new TurnOutcome(List.of(), List.of(), 0, List.of(), List.of(), 0);
  }

  /**
   * The answer of the turn: the first completed run, in run order. A loop, not a stream: a session asks
   * it of every kept turn whenever it builds a turn's history.
   */
  public String text() {
    for (RunOutcome run : runs) {
      if (run.completed()) {
        return run.text();
      }
    }
    return "";
  }

  /**
   * The answers a completed turn shows, one per completed run in run order: the first keeps the
   * turn's message id, further ones are known by their run id.
   */
  public List<Answer> answers(String messageId) {
    List<Answer> answers = new ArrayList<>();
    for (RunOutcome run : runs) {
      if (run.completed()) {
        answers.add(new Answer(answers.isEmpty() ? messageId : run.runId(), run));
      }
    }
    return answers;
  }

  public record Answer(String messageId, RunOutcome run) {}

  /** What the turn used: its runs and the agent's own model calls (routing, extraction, …). */
  public Usage usage() {
    Usage runsUsage = runs.stream().map(RunOutcome::usage).reduce(Usage.NONE, Usage::plus);
    return runsUsage.plus(agent == null ? Usage.NONE : agent.callUsage());
  }

  /** The agent's own model calls in this turn, none for a turn journaled before they were billed. */
  public List<AgentCall> agentCalls() {
    return agent == null ? List.of() : agent.calls();
  }
}
