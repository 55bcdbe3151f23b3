package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a running turn's checkpoints have journaled of its stream so far: the layout of the frames,
 * each run's text, the runs that have ended, what retrieval found, and {@code reservedThrough}, the
 * highest frame id the turn may have streamed without a newer checkpoint. After a crash this is
 * the turn as far as anyone can know it: every client saw at most the frames up to that id.
 * {@code intent} and {@code escalation} are what the agent decided, once its frames were streamed
 * (null before, and in journals written before the agent), and {@code tools} the tool calls and
 * results streamed so far, so that their frames replay. {@code language} is the one the intent frame
 * named (null when unknown, and in journals written before language detection). {@code calls} are the
 * agent's own model calls made so far (routing, summary, …), so that an attempt cut short by a lost
 * node is still billed for them (none in journals written before checkpoints carried them).
 */
public record TurnProgress(
    List<FrameMark> frames,
    List<String> texts,
    List<RunOutcome> endedRuns,
    List<Citation> citations,
    double confidence,
    List<Gap> gaps,
    long reservedThrough,
    Intent intent,
    EscalationReason escalation,
    List<StreamEvent.ToolEvent> tools,
    String language,
    List<AgentCall> calls)
    implements CborSerializable {

  public TurnProgress {
    tools = tools == null ? List.of() : List.copyOf(tools);
    calls = calls == null ? List.of() : List.copyOf(calls);
    frames = List.copyOf(frames);
    texts = List.copyOf(texts);
    endedRuns = List.copyOf(endedRuns);
    citations = List.copyOf(citations);
    gaps = List.copyOf(gaps);
  }

  /** A turn accepted, nothing streamed, its first {@code reserve} frame ids reserved. */
  public static TurnProgress opening(long reservedThrough) {
    return new TurnProgress(List.of(), List.of(), List.of(), List.of(), 0, List.of(), reservedThrough, null, null, List.of(), null,
        List.of());
  }

  /** This progress with one more checkpoint's frames and texts appended. */
  public TurnProgress plus(Checkpoint checkpoint) {
    List<FrameMark> allFrames = new ArrayList<>(frames);
    allFrames.addAll(checkpoint.frames());
    allFrames = FrameMark.grouped(allFrames);
    List<String> allTexts = new ArrayList<>(texts);
    for (int run = 0; run < checkpoint.texts().size(); run++) {
      if (run < allTexts.size()) {
        allTexts.set(run, allTexts.get(run) + checkpoint.texts().get(run));
      } else {
        allTexts.add(checkpoint.texts().get(run));
      }
    }
    List<RunOutcome> allEnded = new ArrayList<>(endedRuns);
    allEnded.addAll(checkpoint.endedRuns());
    List<Gap> allGaps = new ArrayList<>(gaps);
    List<StreamEvent.ToolEvent> allTools = new ArrayList<>(tools);
    allTools.addAll(checkpoint.tools());
    allGaps.addAll(checkpoint.gaps());
    List<AgentCall> allCalls = new ArrayList<>(calls);
    allCalls.addAll(checkpoint.calls());
    boolean retrieved = checkpoint.frames().stream().anyMatch(mark -> mark.kind() == FrameMark.Kind.RETRIEVAL);
    return new TurnProgress(allFrames, allTexts, allEnded, retrieved ? checkpoint.citations() : citations,
        retrieved ? checkpoint.confidence() : confidence, allGaps,
        Math.max(reservedThrough, checkpoint.reservedThrough()),
        checkpoint.intent() != null ? checkpoint.intent() : intent,
        checkpoint.escalation() != null ? checkpoint.escalation() : escalation, allTools,
        checkpoint.language() != null ? checkpoint.language() : language, allCalls);
  }

  /**
   * What one checkpoint journals: the frames recorded since the previous one, the text each run
   * (by index) streamed in them, the runs that ended in them, retrieval's result when it is among
   * them, the agent's decisions when their frames are among them, the agent's model calls made since the
   * previous checkpoint, and the new reservation.
   */
  public record Checkpoint(List<FrameMark> frames, List<String> texts, List<RunOutcome> endedRuns,
      List<Citation> citations, double confidence, List<Gap> gaps, long reservedThrough, Intent intent,
      EscalationReason escalation, List<StreamEvent.ToolEvent> tools, String language, List<AgentCall> calls)
      implements CborSerializable {

    /** A checkpoint without model calls of the agent's own. */
    public Checkpoint(List<FrameMark> frames, List<String> texts, List<RunOutcome> endedRuns,
        List<Citation> citations, double confidence, List<Gap> gaps, long reservedThrough, Intent intent,
        EscalationReason escalation, List<StreamEvent.ToolEvent> tools, String language) {
      this(frames, texts, endedRuns, citations, confidence, gaps, reservedThrough, intent, escalation, tools, language,
          List.of());
    }

    /** This checkpoint carrying {@code made}, the agent's model calls since the previous one. */
    public Checkpoint withCalls(List<AgentCall> made) {
      return new Checkpoint(frames, texts, endedRuns, citations, confidence, gaps, reservedThrough, intent, escalation,
          tools, language, made);
    }

    /** A checkpoint whose frames name no language. */
    public Checkpoint(List<FrameMark> frames, List<String> texts, List<RunOutcome> endedRuns,
        List<Citation> citations, double confidence, List<Gap> gaps, long reservedThrough, Intent intent,
        EscalationReason escalation, List<StreamEvent.ToolEvent> tools) {
      this(frames, texts, endedRuns, citations, confidence, gaps, reservedThrough, intent, escalation, tools, null);
    }

    public Checkpoint {
      tools = tools == null ? List.of() : List.copyOf(tools);
      calls = calls == null ? List.of() : List.copyOf(calls);
      frames = List.copyOf(frames);
      texts = List.copyOf(texts);
      endedRuns = List.copyOf(endedRuns);
      citations = List.copyOf(citations);
      gaps = List.copyOf(gaps);
    }
  }

  /**
   * The outcome of the attempt as far as it was journaled: each run as it ended or, cut short, with
   * the text it had streamed ({@code providerOfModel} names the provider of runs journaled without one). With {@code lost}, its layout ends with a {@link FrameMark.Kind#LOST}
   * mark, so its replay ends with the terminal frame of a turn whose last frames are unknown.
   */
  public TurnOutcome outcome(List<RunSpec> runs, Function<String, String> providerOfModel, boolean lost) {
    List<RunOutcome> outcomes = new ArrayList<>();
    for (int index = 0; index < runs.size(); index++) {
      RunSpec run = runs.get(index);
      String text = index < texts.size() ? texts.get(index) : "";
      outcomes.add(endedRuns.stream().filter(ended -> Objects.equals(ended.runId(), run.runId())).findFirst()
          .orElse(new RunOutcome(run.runId(), run.provider() != null ? run.provider() : providerOfModel.apply(run.model()),
              run.model(),
              RunOutcome.Status.CANCELLED, text, Usage.NONE, 0, null, null)));
    }
    List<FrameMark> layout = new ArrayList<>(frames);
    if (lost) {
      layout.add(FrameMark.of(FrameMark.Kind.LOST));
    }
    AgentTrace agent = intent == null && escalation == null && calls.isEmpty() ? null
        : new AgentTrace(intent, null, escalation, false, List.of(), List.of(), calls, language);
    return new TurnOutcome(outcomes, citations, confidence, gaps, layout, 0, agent, tools);
  }
}
