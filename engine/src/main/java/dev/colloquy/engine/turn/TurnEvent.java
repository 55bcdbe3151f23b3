package dev.colloquy.engine.turn;

import dev.colloquy.engine.CborSerializable;
import java.util.List;

/** The canonical events of a turn's stream (API.md); dialects map them to their own frames. */
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
