package dev.colloquy.engine.domain;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.colloquy.engine.CborSerializable;
import java.util.List;

/**
 * The canonical events of a turn's stream (API.md), each carried by a {@link TurnFrame}; dialects map
 * them to their own frames. The last is always the turn's {@link TurnEnding}. The type names are
 * part of the wire format between nodes: renaming one needs a migration.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = StreamEvent.Started.class, name = "Started"),
  @JsonSubTypes.Type(value = StreamEvent.Retrieved.class, name = "Retrieved"),
  @JsonSubTypes.Type(value = StreamEvent.Token.class, name = "Token"),
  @JsonSubTypes.Type(value = StreamEvent.GapFound.class, name = "GapFound"),
  @JsonSubTypes.Type(value = StreamEvent.RunCompleted.class, name = "RunCompleted"),
  @JsonSubTypes.Type(value = StreamEvent.RunFailed.class, name = "RunFailed"),
  @JsonSubTypes.Type(value = StreamEvent.Restarted.class, name = "Restarted"),
  @JsonSubTypes.Type(value = StreamEvent.IntentRouted.class, name = "IntentRouted"),
  @JsonSubTypes.Type(value = StreamEvent.Escalated.class, name = "Escalated"),
  @JsonSubTypes.Type(value = StreamEvent.ToolCalled.class, name = "ToolCalled"),
  @JsonSubTypes.Type(value = StreamEvent.ToolResulted.class, name = "ToolResulted"),
  @JsonSubTypes.Type(value = TurnEnding.Completed.class, name = "Completed"),
  @JsonSubTypes.Type(value = TurnEnding.Failed.class, name = "Failed"),
  @JsonSubTypes.Type(value = TurnEnding.Cancelled.class, name = "Cancelled")
})
public sealed interface StreamEvent extends CborSerializable permits StreamEvent.Started, StreamEvent.Retrieved,
    StreamEvent.Token, StreamEvent.GapFound, StreamEvent.RunCompleted, StreamEvent.RunFailed, StreamEvent.Restarted,
    StreamEvent.IntentRouted, StreamEvent.Escalated, StreamEvent.ToolEvent, TurnEnding {

  default boolean terminal() {
    return false;
  }

  record Started(List<String> runIds) implements StreamEvent {}

  record Retrieved(List<Citation> citations, double confidence) implements StreamEvent {}

  record Token(String runId, String text) implements StreamEvent {}

  record GapFound(Gap gap) implements StreamEvent {}

  record RunCompleted(RunOutcome run) implements StreamEvent {}

  /** {@code provider} and {@code model} are null in the frames of turns journaled before runs named them. */
  record RunFailed(String runId, String provider, String model, String code, String message) implements StreamEvent {

    public static RunFailed of(RunOutcome run) {
      return new RunFailed(run.runId(), run.provider(), run.model(), run.errorCode(), run.errorMessage());
    }
  }

  /**
   * The turn's node was lost and another node runs the turn again from the start, with new runs: what
   * the frames before this one said is superseded, not continued.
   */
  record Restarted(List<String> runIds, String reason) implements StreamEvent {}

  /**
   * How the agent routed the message, before any retrieval, and the language the message was
   * detected in (an ISO 639-1 code; null when unknown).
   */
  record IntentRouted(Intent intent, String language) implements StreamEvent {

    public IntentRouted(Intent intent) {
      this(intent, null);
    }
  }

  /** The turn handed the session to a human. */
  record Escalated(EscalationReason reason) implements StreamEvent {}

  /** A step of a run's tool-calling loop; journaled with the turn's outcome, in frame order. */
  sealed interface ToolEvent extends StreamEvent permits ToolCalled, ToolResulted {
    String runId();

    String callId();

    String tool();
  }

  /** The model of run {@code runId} asked for {@code tool} with {@code arguments} (its JSON text, as the model wrote it). */
  record ToolCalled(String runId, String callId, String tool, String arguments) implements ToolEvent {}

  /**
   * What the call answered: {@code content} is what the model is sent back, an error's description
   * when {@code ok} is false (the tool failed, timed out, or does not exist).
   */
  record ToolResulted(String runId, String callId, String tool, boolean ok, String content, long latencyMs)
      implements ToolEvent {}
}
