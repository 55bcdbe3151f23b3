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
   * are a failed turn's, or a cancelled one's reason as its message. A text the view holds as one of
   * its messages is not carried twice: {@code message} is then null, and so is the {@code text} of a
   * run whose answer is such a message; {@link SessionView#messageOf} and {@link SessionView#textOf}
   * read them wherever they are.
   */
  public record TurnView(String turnId, String message, TurnStatus status, Instant acceptedAt, Instant endedAt,
      List<RunSpec> runs, List<RunOutcome> outcomes, String endCode, String endMessage) implements CborSerializable {

    public TurnView {
      runs = List.copyOf(runs);
      outcomes = List.copyOf(outcomes);
    }

    /** {@code turn} in a view whose messages are those of {@code messageIds}. */
    static TurnView of(TurnRecord turn, java.util.Set<String> messageIds) {
      java.util.Set<String> answeredRuns = new java.util.HashSet<>();
      if (turn.status() == TurnStatus.COMPLETED) {
        turn.outcome().answers(turn.assistantMessageId()).stream()
            .filter(answer -> messageIds.contains(answer.messageId()))
            .forEach(answer -> answeredRuns.add(answer.run().runId()));
      }
      List<RunOutcome> outcomes = turn.outcome() == null ? List.of() : turn.outcome().runs().stream()
          .map(run -> answeredRuns.contains(run.runId()) ? withoutText(run) : run).toList();
      return new TurnView(turn.turnId(), messageIds.contains(turn.userMessageId()) ? null : turn.message(),
          turn.status(), turn.acceptedAt(), turn.endedAt(), turn.runs(), outcomes, turn.endCode(), turn.endMessage());
    }

    private static RunOutcome withoutText(RunOutcome run) {
      return new RunOutcome(run.runId(), run.provider(), run.model(), run.status(), null, run.usage(), run.latencyMs(),
          run.errorCode(), run.errorMessage());
    }

    /** How the run {@code runId} ended, if it has. */
    public java.util.Optional<RunOutcome> outcome(String runId) {
      return outcomes.stream().filter(outcome -> outcome.runId().equals(runId)).findFirst();
    }
  }

  /** The message {@code turn} was asked with, from the view's messages when it is one of them. */
  public String messageOf(TurnView turn) {
    return turn.message() != null ? turn.message() : messages.stream()
        .filter(message -> message.turnId().equals(turn.turnId()) && "user".equals(message.role()))
        .map(MessageView::content).findFirst().orElse("");
  }

  /** The text {@code run} of {@code turn} streamed, from the view's messages when its answer is one of them. */
  public String textOf(TurnView turn, RunOutcome run) {
    return run.text() != null ? run.text() : messages.stream()
        .filter(message -> message.turnId().equals(turn.turnId()) && run.runId().equals(message.runId()))
        .map(MessageView::content).findFirst().orElse("");
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
