package dev.colloquy.engine.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.RollingSummary;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnStatus;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.turn.EarlierHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A chat session's state and its business rules. Applying an event never fails and never decides:
 * the decisions are made by the methods that the entity asks before it persists.
 */
public record SessionState(
    String sessionId,
    SessionStatus status,
    String tenantId,
    String userId,
    String persona,
    JsonNode metadata,
    String title,
    Instant createdAt,
    Instant updatedAt,
    List<TurnRecord> turns,
    JsonNode narrativeState,
    String closeReason,
    SessionSummary summary,
    String characterId,
    int inheritedTurns,
    EscalationReason escalationReason,
    List<ChatMessage> context,
    RollingSummary rollingSummary)
    implements CborSerializable {

  static final int TITLE_LENGTH = 60;
  /** The longest title a user may give a session. */
  public static final int MAX_TITLE_LENGTH = 200;

  public SessionState {
    turns = List.copyOf(turns);
    context = context == null ? List.of() : List.copyOf(context);
  }

  public static SessionState empty(String sessionId) {
    return new SessionState(sessionId, SessionStatus.NEW, null, null, null, emptyObject(), null, null, null,
        List.of(), emptyObject(), null, null, null, 0, null, List.of(), null);
  }

  public boolean exists() {
    return open() || status == SessionStatus.CLOSED;
  }

  /**
   * Whether the session is out of reach of a caller of {@code callerTenantId} acting for
   * {@code callerUserId} (null: the whole tenant); a new or deleted session belongs to no one.
   */
  public boolean foreignTo(String callerTenantId, String callerUserId) {
    return tenantId != null && !new SessionOwner(tenantId, userId).reachableBy(callerTenantId, callerUserId);
  }

  /** Open to new messages: an escalated session takes them too, and forwards them to its human. */
  public boolean open() {
    return status == SessionStatus.OPEN || status == SessionStatus.ESCALATED;
  }

  /** Whether a human has the conversation: messages are forwarded to them, not answered by the model. */
  public boolean handedOff() {
    return status == SessionStatus.ESCALATED;
  }

  /** How many turns completed: the turns a new one comes after, for the escalation rules. */
  public int completedTurns() {
    return (int) turns.stream().filter(turn -> turn.status() == TurnStatus.COMPLETED).count();
  }

  /**
   * The narrative state a turn's model reads: a Writing Room chat's story so far, as its seed hands the
   * supervisor the chat's state beside its history; null for other sessions, whose narrative state is
   * kept for their clients only; an empty object for a chat before its first completed turn (the
   * model is then sent no story state, but the turn still knows it serves a character).
   */
  public JsonNode storyState() {
    if (characterId == null) {
      return null;
    }
    return narrativeState == null ? emptyObject() : narrativeState;
  }

  public Optional<TurnRecord> turn(String turnId) {
    return turns.stream().filter(turn -> turn.turnId().equals(turnId)).findFirst();
  }

  public Optional<TurnRecord> turnByIdempotencyKey(String key) {
    return turns.stream().filter(turn -> key.equals(turn.idempotencyKey())).findFirst();
  }

  /** Pending turns in the order they were accepted; the first is the one that runs. */
  public List<TurnRecord> pendingTurns() {
    return turns.stream().filter(TurnRecord::pending).toList();
  }

  public Optional<TurnRecord> runningTurn() {
    return turns.stream().filter(TurnRecord::pending).findFirst();
  }

  /**
   * The conversation so far as the model sees it: the context it was opened with, then each
   * completed turn's message and its answer.
   */
  public List<ChatMessage> history(int window) {
    List<ChatMessage> unsummarized = unsummarized();
    return unsummarized.subList(Math.max(0, unsummarized.size() - window), unsummarized.size());
  }

  /** What comes before {@link #history}: the rolling summary, and the messages after it the window leaves out. */
  public EarlierHistory earlier(int window) {
    List<ChatMessage> unsummarized = unsummarized();
    return new EarlierHistory(rollingSummary, unsummarized.subList(0, Math.max(0, unsummarized.size() - window)));
  }

  /** The conversation (the opening context, then each completed turn's message and answer) after the rolling summary. */
  private List<ChatMessage> unsummarized() {
    List<ChatMessage> conversation = new ArrayList<>(context);
    for (TurnRecord turn : turns) {
      if (turn.status() == TurnStatus.COMPLETED) {
        conversation.add(ChatMessage.user(turn.message()));
        conversation.add(ChatMessage.assistant(turn.outcome().text()));
      }
    }
    int covered = rollingSummary == null ? 0 : Math.min(rollingSummary.coveredMessages(), conversation.size());
    return conversation.subList(covered, conversation.size());
  }

  /**
   * A title is given from the first message, once, and only to a session without one: a title its
   * user chose, before or after, is never replaced by an automatic one.
   */
  public Optional<String> titleFor(String message) {
    if (title != null) {
      return Optional.empty();
    }
    String line = message.strip().replaceAll("\\s+", " ");
    return Optional.of(line.length() <= TITLE_LENGTH ? line : line.substring(0, TITLE_LENGTH - 1) + "…");
  }

  /** Why {@code title} cannot be a title a user gives, if it cannot. */
  public static Optional<String> titleProblem(String title) {
    if (title == null || title.isBlank()) {
      return Optional.of("The title must not be empty");
    }
    if (title.strip().length() > MAX_TITLE_LENGTH) {
      return Optional.of("The title must be at most " + MAX_TITLE_LENGTH + " characters");
    }
    return Optional.empty();
  }

  /**
   * What a finished turn adds to the narrative state: how many turns have completed, which sources
   * the conversation has drawn on, the gaps the last turn found, and the character traits its gap
   * sub-agent established.
   */
  public JsonNode narrativeDeltaAfter(TurnOutcome outcome) {
    ObjectNode delta = emptyObject();
    int completed = (int) turns.stream().filter(turn -> turn.status() == TurnStatus.COMPLETED).count();
    delta.put("completed_turns", completed);
    Set<String> sources = new LinkedHashSet<>();
    narrativeState.path("cited_sources").forEach(node -> sources.add(node.asText()));
    outcome.citations().forEach(citation -> sources.add(citation.source()));
    delta.putArray("cited_sources").addAll(sources.stream().map(JsonNodeFactory.instance::textNode).toList());
    var gaps = delta.putArray("open_gaps");
    outcome.gaps().forEach(gap -> gaps.addObject().put("attribute", gap.attribute()).put("suggestion", gap.suggestion()));
    // The gap sub-agent's structured answer: character traits the message established, merged over earlier ones.
    if (outcome.agent() != null && outcome.agent().characterTraits() != null && !outcome.agent().characterTraits().isEmpty()) {
      delta.set("character_traits", outcome.agent().characterTraits());
    }
    return delta;
  }

  /** When a turn last began or ended, or the session was opened when it has had no turn. */
  public Instant lastActivity() {
    Instant last = createdAt;
    for (TurnRecord turn : turns) {
      Instant at = turn.endedAt() != null ? turn.endedAt() : turn.acceptedAt();
      if (last == null || at.isAfter(last)) {
        last = at;
      }
    }
    return last;
  }

  /** Idle at {@code now}: open, no turn running or waiting, and nothing happened for {@code timeout}. */
  public boolean idleAt(Instant now, Duration timeout) {
    return open() && pendingTurns().isEmpty() && !idleDeadline(timeout).isAfter(now);
  }

  /**
   * When an idle session closes: its last activity plus the timeout. Not when the reaper noticed,
   * which depends on its check interval and on whether the server was running, and must not be billed.
   */
  public Instant idleDeadline(Duration timeout) {
    return lastActivity().plus(timeout);
  }

  /** What the session amounted to, for billing: a fork's inherited turns were billed to its original. */
  public SessionSummary summarize(Instant closedAt) {
    Map<String, Usage> usage = new LinkedHashMap<>();
    int completed = 0;
    List<TurnRecord> own = turns.subList(inheritedTurns, turns.size());
    for (TurnRecord turn : own) {
      if (turn.status() == TurnStatus.COMPLETED) {
        completed++;
      }
      if (turn.outcome() != null) {
        for (RunOutcome run : turn.outcome().runs()) {
          usage.merge(run.provider() + "/" + run.model(), run.usage(), Usage::plus);
        }
        for (AgentCall call : turn.outcome().agentCalls()) {
          usage.merge(call.provider() + "/" + call.model(), call.usage(), Usage::plus);
        }
      }
    }
    return new SessionSummary(own.size(), completed, usage, createdAt, closedAt,
        Duration.between(createdAt, closedAt).toMillis());
  }

  public SessionView view() {
    List<SessionView.MessageView> messages = new ArrayList<>();
    for (TurnRecord turn : turns) {
      messages.add(new SessionView.MessageView(turn.userMessageId(), "user", turn.message(), turn.turnId(),
          null, null, List.of(), turn.acceptedAt()));
      if (turn.status() == TurnStatus.COMPLETED) {
        for (TurnOutcome.Answer answer : turn.outcome().answers(turn.assistantMessageId())) {
          RunOutcome run = answer.run();
          messages.add(new SessionView.MessageView(answer.messageId(), "assistant", run.text(), turn.turnId(),
              run.runId(), run.model(), turn.outcome().citations(), turn.endedAt()));
        }
      }
    }
    return new SessionView(sessionId, status, title, persona, metadata, createdAt, updatedAt, closeReason,
        messages, narrativeState, runningTurn().map(TurnRecord::turnId).orElse(null), summary, characterId,
        userId, turns.stream().map(SessionView.TurnView::of).toList());
  }

  /** Applies one journaled event. Pure: the same events always give the same state. */
  public SessionState apply(ChatSession.Event event) {
    return switch (event) {
      case ChatSession.SessionOpened e -> new SessionState(sessionId, SessionStatus.OPEN, e.tenantId(), e.userId(),
          e.persona(), e.metadata(), null, e.at(), e.at(), List.of(), emptyObject(), null, null, e.characterId(), 0,
          null, e.context(), null);
      case ChatSession.SessionForked e -> new SessionState(sessionId, status, tenantId, userId, persona, metadata,
          e.title(), createdAt, e.at(), e.turns(), e.narrativeState(), closeReason, summary, characterId,
          e.turns().size(), escalationReason, context, rollingSummary);
      case ChatSession.SessionRenamed e -> with(e.title(), e.at(), turns, narrativeState);
      case ChatSession.TurnAccepted e -> with(title, e.at(), append(TurnRecord.accepted(e.turnId(),
          e.idempotencyKey(), e.traceId(), e.userMessageId(), e.message(), e.runs(), e.at())), narrativeState);
      case ChatSession.TurnEnded e -> end(e.turnId(), t -> t.ended(e.ending(), e.outcome(), e.at()), e.at());
      case ChatSession.TurnCheckpointed e -> end(e.turnId(), t -> t.checkpointed(e.checkpoint()), updatedAt);
      case ChatSession.TurnRestarted e -> end(e.turnId(), t -> t.restarted(e.cutShort(), e.runs()), e.at());
      case ChatSession.NarrativeStateMerged e -> with(title, e.at(), turns, JsonMergePatch.apply(narrativeState, e.delta()));
      case ChatSession.SessionClosed e -> new SessionState(sessionId, SessionStatus.CLOSED, tenantId, userId, persona, metadata,
          title, createdAt, e.at(), turns, narrativeState, e.reason(), e.summary(), characterId, inheritedTurns,
          escalationReason, context, rollingSummary);
      case ChatSession.SessionDeleted e -> new SessionState(sessionId, SessionStatus.DELETED, null, null, null, emptyObject(),
          null, null, e.at(), List.of(), emptyObject(), null, null, null, 0, null, List.of(), null);
      case ChatSession.SessionEscalated e -> new SessionState(sessionId, SessionStatus.ESCALATED, tenantId, userId,
          persona, metadata, title, createdAt, e.at(), turns, narrativeState, closeReason, summary, characterId,
          inheritedTurns, e.reason(), context, rollingSummary);
      case ChatSession.SessionHandedBack e -> new SessionState(sessionId, SessionStatus.OPEN, tenantId, userId,
          persona, metadata, title, createdAt, e.at(), turns, narrativeState, closeReason, summary, characterId,
          inheritedTurns, null, context, rollingSummary);
      case ChatSession.HistorySummarized e -> new SessionState(sessionId, status, tenantId, userId, persona, metadata,
          title, createdAt, updatedAt, turns, narrativeState, closeReason, summary, characterId, inheritedTurns,
          escalationReason, context, e.summary());
    };
  }

  private SessionState with(String newTitle, Instant at, List<TurnRecord> newTurns, JsonNode newNarrative) {
    return new SessionState(sessionId, status, tenantId, userId, persona, metadata, newTitle, createdAt, at, newTurns,
        newNarrative, closeReason, summary, characterId, inheritedTurns, escalationReason, context, rollingSummary);
  }

  private List<TurnRecord> append(TurnRecord turn) {
    List<TurnRecord> appended = new ArrayList<>(turns);
    appended.add(turn);
    return appended;
  }

  private SessionState end(String turnId, java.util.function.UnaryOperator<TurnRecord> ending, Instant at) {
    List<TurnRecord> updated = new ArrayList<>(turns.size());
    for (TurnRecord turn : turns) {
      updated.add(turn.turnId().equals(turnId) && turn.pending() ? ending.apply(turn) : turn);
    }
    return with(title, at, updated, narrativeState);
  }

  private static ObjectNode emptyObject() {
    return JsonNodeFactory.instance.objectNode();
  }
}
