package dev.colloquy.engine.turn;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.Usage;
import java.util.List;

/**
 * The canonical events of a turn's stream (API.md); dialects map them to their own frames. The type
 * names are part of the wire format between nodes: renaming one needs a migration.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = TurnEvent.Started.class, name = "Started"),
  @JsonSubTypes.Type(value = TurnEvent.Retrieved.class, name = "Retrieved"),
  @JsonSubTypes.Type(value = TurnEvent.Token.class, name = "Token"),
  @JsonSubTypes.Type(value = TurnEvent.GapFound.class, name = "GapFound"),
  @JsonSubTypes.Type(value = TurnEvent.RunCompleted.class, name = "RunCompleted"),
  @JsonSubTypes.Type(value = TurnEvent.RunFailed.class, name = "RunFailed"),
  @JsonSubTypes.Type(value = TurnEvent.Completed.class, name = "Completed"),
  @JsonSubTypes.Type(value = TurnEvent.Failed.class, name = "Failed"),
  @JsonSubTypes.Type(value = TurnEvent.Cancelled.class, name = "Cancelled")
})
public sealed interface TurnEvent extends CborSerializable {

  default boolean terminal() {
    return false;
  }

  record Started(List<String> runIds) implements TurnEvent {}

  record Retrieved(List<Citation> citations, double confidence) implements TurnEvent {}

  record Token(String runId, String text) implements TurnEvent {}

  record GapFound(Gap gap) implements TurnEvent {}

  record RunCompleted(RunOutcome run) implements TurnEvent {}

  record RunFailed(String runId, String code, String message) implements TurnEvent {}

  record Completed(String messageId, String text, long latencyMs, Usage usage) implements TurnEvent {
    @Override
    public boolean terminal() {
      return true;
    }
  }

  record Failed(String code, String message) implements TurnEvent {
    @Override
    public boolean terminal() {
      return true;
    }
  }

  record Cancelled(String reason) implements TurnEvent {
    @Override
    public boolean terminal() {
      return true;
    }
  }
}
