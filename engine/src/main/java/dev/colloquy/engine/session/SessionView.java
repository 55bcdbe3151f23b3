package dev.colloquy.engine.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnStatus;
import java.time.Instant;
import java.util.List;

/**
 * A session as its owner sees it: status, title, messages in order, narrative state; the character of
 * a chat, the user it belongs to (null for a session of the whole tenant), and its turns with every
 * run, failed ones included.
 */
public record SessionView(
    String sessionId,
    SessionStatus status,
    String title,
    String persona,
    JsonNode metadata,
    Instant createdAt,
    Instant updatedAt,
    String closeReason,
    List<MessageView> messages,
    JsonNode narrativeState,
    String runningTurnId,
    SessionSummary summary,
    String characterId,
    String userId,
    List<TurnView> turns)
    implements CborSerializable {

  public SessionView {
    messages = List.copyOf(messages);
    turns = List.copyOf(turns);
  }

  /**
   * A turn with every run in the order they were started: what each asked ({@code runs}) and, once it
   * has ended, how ({@code outcomes}; a turn cut short by a crash has none). The end code and message
   * are a failed turn's, or a cancelled one's reason as its message.
   */
  public record TurnView(String turnId, String message, TurnStatus status, Instant acceptedAt, Instant endedAt,
      List<RunSpec> runs, List<RunOutcome> outcomes, String endCode, String endMessage) implements CborSerializable {

    public TurnView {
      runs = List.copyOf(runs);
      outcomes = List.copyOf(outcomes);
    }

    static TurnView of(TurnRecord turn) {
      return new TurnView(turn.turnId(), turn.message(), turn.status(), turn.acceptedAt(), turn.endedAt(), turn.runs(),
          turn.outcome() == null ? List.of() : turn.outcome().runs(), turn.endCode(), turn.endMessage());
    }

    /** How the run {@code runId} ended, if it has. */
    public java.util.Optional<RunOutcome> outcome(String runId) {
      return outcomes.stream().filter(outcome -> outcome.runId().equals(runId)).findFirst();
    }
  }

  /** A user message, or one completed run's answer (a turn with several runs has several). */
  public record MessageView(
      String messageId,
      String role,
      String content,
      String turnId,
      String runId,
      String model,
      List<Citation> citations,
      Instant createdAt)
      implements CborSerializable {

    public MessageView {
      citations = List.copyOf(citations);
    }
  }
}
