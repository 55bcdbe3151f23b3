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
 * A session as its owner sees it: status, title, a page of its messages in order (the newest, or
 * those before a given one), narrative state; the character of a chat, the user it belongs to (null
 * for a session of the whole tenant), and the turns of the page with every run, failed ones included.
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
    List<TurnView> turns,
    Page page)
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

  /** The same session with another page of messages. */
  public SessionView withMessages(List<MessageView> otherMessages, Page otherPage) {
    java.util.Set<String> paged = new java.util.HashSet<>();
    otherMessages.forEach(message -> paged.add(message.turnId()));
    List<TurnView> pagedTurns = turns.stream()
        .filter(turn -> paged.contains(turn.turnId()) || turn.turnId().equals(runningTurnId)).toList();
    return new SessionView(sessionId, status, title, persona, metadata, createdAt, updatedAt, closeReason,
        otherMessages, narrativeState, runningTurnId, summary, characterId, userId, pagedTurns, otherPage);
  }

  /**
   * Where {@code messages} stand in the session's history, of which the entity keeps only the
   * newest turns: {@code earlier} says whether messages precede them. When {@code continuesBeforeTurn}
   * is set, the page ran out of kept turns before it was full and goes on with the messages of the
   * turns numbered below it, which the read side holds. {@code anchorNotKept}: the message the page
   * was to end before is not among those kept, so the whole page is the read side's to give.
   */
  public record Page(boolean earlier, Integer continuesBeforeTurn, boolean anchorNotKept)
      implements CborSerializable {

    static final Page WHOLE = new Page(false, null, false);

    /** A page that is complete as it is: {@code earlier} says whether messages precede it. */
    public static Page complete(boolean earlier) {
      return new Page(earlier, null, false);
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
