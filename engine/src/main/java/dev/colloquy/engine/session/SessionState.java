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
import dev.colloquy.engine.domain.Utf8;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.turn.EarlierHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A chat session's state and its business rules. Applying an event never fails and never decides:
 * the decisions are made by the methods that the entity asks before it persists.
 *
 * <p>Its size does not grow with the session: it keeps the newest {@link #TURNS_KEPT} turns (what
 * the prompt's history, a resume, a retry and the first page of messages need) and every pending
 * one, and running {@link SessionTotals} for the rest; older turns live on in the journal and in the
 * read side's messages. So a snapshot stays under a fixed size and a long session recovers as fast
 * as a short one.
 *
 * <p>{@code inheritedTurns}: the turns the stretch being counted for billing does not include, a fork's
 * inherited ones, or every turn before the session reopened after closing for idleness.
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
    SessionTotals totals,
    RollingSummary rollingSummary)
    implements CborSerializable {

  static final int TITLE_LENGTH = 60;
  /** The longest title a user may give a session. */
  public static final int MAX_TITLE_LENGTH = 200;

  /**
   * How many of the newest ended turns are kept in memory. The longest history window
   * (colloquy.session.history-window, 100 messages) fits in them; a turn older than these can no
   * longer be resumed, replayed or recognised by its idempotency key, and its messages come from
   * the read side.
   */
  public static final int TURNS_KEPT = 50;

  /** Sources the narrative state remembers as cited, the most recently cited last. */
  static final int CITED_SOURCES_KEPT = 100;

  /** Messages a page holds unless asked for fewer, and at most. */
  public static final int PAGE_MESSAGES = 100;
  public static final int MAX_PAGE_MESSAGES = 500;

  /**
   * Text a page of messages carries at most (UTF-8, with its citations), beyond its first message: a
   * view crosses nodes in one message, and this keeps it well within the cluster's largest frame.
   */
  public static final long PAGE_BYTES = 1024 * 1024;

  /**
   * The empty object of a session without metadata or narrative state, one instance for all: most
   * sessions have neither, and each in memory would otherwise hold two (and its entity's initial state
   * two more). The state's JSON is never changed in place (a merge copies it, see JsonMergePatch).
   */
  private static final ObjectNode NOTHING = JsonNodeFactory.instance.objectNode();

  public SessionState {
    context = context == null ? List.of() : List.copyOf(context);
    metadata = shared(metadata);
    narrativeState = shared(narrativeState);
    if (totals == null) {
      // A snapshot from before the state kept totals holds every turn, unnumbered.
      List<TurnRecord> numbered = new ArrayList<>(turns.size());
      for (int i = 0; i < turns.size(); i++) {
        numbered.add(turns.get(i).numbered(i + 1));
      }
      turns = numbered;
      totals = SessionTotals.of(turns, createdAt);
    }
    turns = kept(turns);
  }

  public static SessionState empty(String sessionId) {
    return new SessionState(sessionId, SessionStatus.NEW, null, null, null, emptyObject(), null, null, null,
        List.of(), emptyObject(), null, null, null, 0, null, List.of(), SessionTotals.openedAt(null), null);
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

  /**
   * How many turns completed, all told (not only the kept ones): the turns a new one comes after, for
   * the escalation rules.
   */
  public int completedTurns() {
    return totals.completedTurns();
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

  // The lookups below are loops, not streams: a session runs several of them over its kept turns (up to
  // TURNS_KEPT) for every command of a turn, and a stream's set-up cost more than the search.

  public Optional<TurnRecord> turn(String turnId) {
    for (TurnRecord turn : turns) {
      if (turn.turnId().equals(turnId)) {
        return Optional.of(turn);
      }
    }
    return Optional.empty();
  }

  public Optional<TurnRecord> turnByIdempotencyKey(String key) {
    for (TurnRecord turn : turns) {
      if (key.equals(turn.idempotencyKey())) {
        return Optional.of(turn);
      }
    }
    return Optional.empty();
  }

  /** Pending turns in the order they were accepted; the first is the one that runs. */
  public List<TurnRecord> pendingTurns() {
    List<TurnRecord> pending = new ArrayList<>();
    for (TurnRecord turn : turns) {
      if (turn.pending()) {
        pending.add(turn);
      }
    }
    return Collections.unmodifiableList(pending);
  }

  public Optional<TurnRecord> runningTurn() {
    for (TurnRecord turn : turns) {
      if (turn.pending()) {
        return Optional.of(turn);
      }
    }
    return Optional.empty();
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
    RollingSummary known = rollingSummary;
    int covered = coveredOrDropped();
    if (known != null && covered > known.coveredMessages()) {
      // The summary stops short of turns no longer kept: the next one counts them as covered.
      known = new RollingSummary(known.text(), covered, known.source());
    }
    return new EarlierHistory(known, unsummarized.subList(0, Math.max(0, unsummarized.size() - window)));
  }

  /**
   * The conversation (the opening context, then each kept completed turn's message and answer) after
   * the rolling summary. The summary counts messages from the session's start, and the completed turns
   * no longer kept (see {@link #TURNS_KEPT}) come between the context and the kept ones.
   */
  private List<ChatMessage> unsummarized() {
    List<ChatMessage> conversation = new ArrayList<>(context);
    for (TurnRecord turn : turns) {
      if (turn.status() == TurnStatus.COMPLETED) {
        conversation.add(ChatMessage.user(turn.message()));
        conversation.add(ChatMessage.assistant(turn.outcome().text()));
      }
    }
    int dropped = droppedMessages();
    int covered = coveredOrDropped();
    int local = dropped == 0 ? covered : covered - dropped;
    return conversation.subList(Math.min(local, conversation.size()), conversation.size());
  }

  /** The messages of the completed turns no longer kept: they sit between the context and the kept turns. */
  private int droppedMessages() {
    int keptCompleted = 0;
    for (TurnRecord turn : turns) {
      if (turn.status() == TurnStatus.COMPLETED) {
        keptCompleted++;
      }
    }
    return 2 * Math.max(0, totals.completedTurns() - keptCompleted);
  }

  /**
   * How many messages from the session's start the prompt leaves to the summary: those it covers, and
   * at least the context and the turns no longer kept when some are not, as the state no longer holds
   * them (so the summary's count stays a count from the start).
   */
  private int coveredOrDropped() {
    int covered = rollingSummary == null ? 0 : rollingSummary.coveredMessages();
    int dropped = droppedMessages();
    return dropped == 0 ? covered : Math.max(covered, context.size() + dropped);
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
   * the conversation has drawn on (the {@link #CITED_SOURCES_KEPT} most recently cited), the gaps
   * the last turn found, and the character traits its gap sub-agent established.
   */
  public JsonNode narrativeDeltaAfter(TurnOutcome outcome) {
    ObjectNode delta = emptyObject();
    delta.put("completed_turns", totals.completedTurns());
    Set<String> sources = new LinkedHashSet<>();
    narrativeState.path("cited_sources").forEach(node -> sources.add(node.asText()));
    outcome.citations().forEach(citation -> {
      sources.remove(citation.source());
      sources.add(citation.source());
    });
    delta.putArray("cited_sources").addAll(sources.stream().skip(Math.max(0, sources.size() - CITED_SOURCES_KEPT))
        .map(JsonNodeFactory.instance::textNode).toList());
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
    return totals.lastActivity() != null ? totals.lastActivity() : createdAt;
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

  /**
   * What the session amounted to, for billing: a fork's inherited turns were billed to its original, and
   * a session that reopened after closing for idleness counts from its reopening, what came before
   * having been billed with that close.
   */
  public SessionSummary summarize(Instant closedAt) {
    Instant from = totals.billedFrom() != null ? totals.billedFrom() : createdAt;
    return new SessionSummary(totals.turns() - inheritedTurns, totals.completedTurns() - totals.inheritedCompleted(),
        totals.usageByModel(), from, closedAt, Duration.between(from, closedAt).toMillis());
  }

  /** Closed because nobody used it for its idle timeout, rather than by a caller. */
  public boolean closedForIdleness() {
    return status == SessionStatus.CLOSED && ChatSession.IDLE_REASON.equals(closeReason);
  }

  /** Whether another turn may be accepted when a session takes at most {@code maxTurns}. */
  public boolean hasRoomForTurn(int maxTurns) {
    return totals.turns() < maxTurns;
  }

  /** The session with its newest page of messages. */
  public SessionView view() {
    return view(null, PAGE_MESSAGES);
  }

  /**
   * The session with a page of at most {@code limit} messages: the newest, or those just before the
   * message {@code beforeMessageId}; at most {@link #PAGE_BYTES} of text beyond the first message's
   * turn. A paged turn travels with the page whole, its message and every run's text once each (in
   * the page's messages, or in its {@link SessionView.TurnView} when they are not there), so a turn
   * weighs all of its text when its first message joins the page, and the first turn at most its
   * message and the turn's answer budget. Where the kept turns do not reach, the page says so (see
   * {@link SessionView.Page}).
   */
  public SessionView view(String beforeMessageId, int limit) {
    List<SessionView.MessageView> kept = keptMessages();
    int end = kept.size();
    if (beforeMessageId != null) {
      end = indexOf(kept, beforeMessageId);
      if (end < 0) {
        return view(List.of(), new SessionView.Page(false, null, true));
      }
    }
    Map<String, Long> turnText = new HashMap<>();
    for (TurnRecord turn : turns) {
      turnText.put(turn.turnId(), textOf(turn));
    }
    int start = end;
    long bytes = 0;
    boolean full = false;
    while (start > 0 && !full) {
      SessionView.MessageView message = kept.get(start - 1);
      // A turn's text joins the page with its first message there (its newest); its other messages
      // then join with it, as far as the limit allows, since the page carries their text anyway.
      Long text = turnText.remove(message.turnId());
      long size = weight(message) + (text == null ? 0 : text);
      if (start < end && text != null && bytes + size > PAGE_BYTES) {
        full = true;
      } else {
        bytes += size;
        start--;
        full = end - start >= limit;
      }
    }
    int firstKeptTurn = turns.isEmpty() ? totals.turns() + 1 : turns.getFirst().ordinal();
    boolean earlierElsewhere = firstKeptTurn > 1;
    SessionView.Page page;
    if (full || start > 0) {
      page = new SessionView.Page(start > 0 || earlierElsewhere, null, false);
    } else {
      page = earlierElsewhere ? new SessionView.Page(true, firstKeptTurn, false) : SessionView.Page.WHOLE;
    }
    return view(kept.subList(start, end), page);
  }

  /**
   * The view of a page: its turns are those whose messages it holds, and the one running, so that
   * the view stays as bounded as its page. A text that is one of the page's messages is not carried
   * again by its turn (see {@link SessionView.TurnView#of}).
   */
  private SessionView view(List<SessionView.MessageView> messages, SessionView.Page page) {
    Set<String> paged = new LinkedHashSet<>();
    messages.forEach(message -> paged.add(message.turnId()));
    runningTurn().ifPresent(turn -> paged.add(turn.turnId()));
    Set<String> inMessages = new HashSet<>();
    messages.forEach(message -> inMessages.add(message.messageId()));
    List<SessionView.TurnView> turnViews = turns.stream().filter(turn -> paged.contains(turn.turnId()))
        .map(turn -> SessionView.TurnView.of(turn, inMessages)).toList();
    return new SessionView(sessionId, status, title, persona, metadata, createdAt, updatedAt, closeReason,
        messages, narrativeState, runningTurn().map(TurnRecord::turnId).orElse(null), summary, characterId, userId,
        turnViews, page);
  }

  /** The messages of the kept turns, oldest first: each turn's user message, then its answers if it completed. */
  private List<SessionView.MessageView> keptMessages() {
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
    return messages;
  }

  /** The UTF-8 length of {@code turn}'s text: its message and the text of each of its runs. */
  private static long textOf(TurnRecord turn) {
    long bytes = turn.message() == null ? 0 : Utf8.length(turn.message());
    if (turn.outcome() != null) {
      for (RunOutcome run : turn.outcome().runs()) {
        bytes += run.text() == null ? 0 : Utf8.length(run.text());
      }
    }
    return bytes;
  }

  /** What a message weighs in a page beyond its turn's text (see {@link #textOf}): its citations' names, in UTF-8. */
  static long weight(SessionView.MessageView message) {
    long bytes = 0;
    for (var citation : message.citations()) {
      bytes += Utf8.length(String.valueOf(citation.source())) + Utf8.length(String.valueOf(citation.section()))
          + Utf8.length(String.valueOf(citation.documentId())) + 32;
    }
    return bytes;
  }

  private static int indexOf(List<SessionView.MessageView> messages, String messageId) {
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).messageId().equals(messageId)) {
        return i;
      }
    }
    return -1;
  }

  /** Applies one journaled event. Pure: the same events always give the same state. */
  public SessionState apply(ChatSession.Event event) {
    return switch (event) {
      case ChatSession.SessionOpened e -> new SessionState(sessionId, SessionStatus.OPEN, e.tenantId(), e.userId(),
          e.persona(), e.metadata(), null, e.at(), e.at(), List.of(), emptyObject(), null, null, e.characterId(), 0,
          null, e.context(), SessionTotals.openedAt(e.at()), null);
      case ChatSession.SessionForked e -> forked(e);
      case ChatSession.SessionRenamed e -> with(e.title(), e.at(), turns, narrativeState, totals);
      case ChatSession.TurnAccepted e -> with(title, e.at(), append(TurnRecord.accepted(e.turnId(),
          e.idempotencyKey(), e.traceId(), e.userMessageId(), e.message(), e.runs(), e.at(), totals.turns() + 1)),
          narrativeState, totals.accepted(e.at()));
      case ChatSession.TurnEnded e -> end(e.turnId(), t -> t.ended(e.ending(), e.outcome(), e.at()), e.at(),
          totals.ended(e.ending().status(), e.outcome(), e.at()));
      case ChatSession.TurnCheckpointed e -> update(e.turnId(), t -> t.checkpointed(e.checkpoint()), updatedAt);
      case ChatSession.TurnRestarted e -> end(e.turnId(), t -> t.restarted(e.cutShort(), e.runs()), e.at(),
          e.cutShort() == null ? totals : totals.attempted(e.cutShort().outcome(), e.at()));
      case ChatSession.NarrativeStateMerged e ->
          with(title, e.at(), turns, JsonMergePatch.apply(narrativeState, e.delta()), totals);
      case ChatSession.SessionClosed e -> new SessionState(sessionId, SessionStatus.CLOSED, tenantId, userId, persona,
          metadata, title, createdAt, e.at(), turns, narrativeState, e.reason(), e.summary(), characterId,
          inheritedTurns, escalationReason, context, totals, rollingSummary);
      case ChatSession.SessionReopened e -> new SessionState(sessionId, SessionStatus.OPEN, tenantId, userId, persona,
          metadata, title, createdAt, e.at(), turns, narrativeState, null, null, characterId, totals.turns(),
          escalationReason, context, totals.reopened(e.at()), rollingSummary);
      case ChatSession.SessionDeleted e -> new SessionState(sessionId, SessionStatus.DELETED, null, null, null,
          emptyObject(), null, null, e.at(), List.of(), emptyObject(), null, null, null, 0, null, List.of(),
          SessionTotals.openedAt(null), null);
      case ChatSession.SessionEscalated e -> new SessionState(sessionId, SessionStatus.ESCALATED, tenantId, userId,
          persona, metadata, title, createdAt, e.at(), turns, narrativeState, closeReason, summary, characterId,
          inheritedTurns, e.reason(), context, totals, rollingSummary);
      case ChatSession.SessionHandedBack e -> new SessionState(sessionId, SessionStatus.OPEN, tenantId, userId,
          persona, metadata, title, createdAt, e.at(), turns, narrativeState, closeReason, summary, characterId,
          inheritedTurns, null, context, totals, rollingSummary);
      case ChatSession.HistorySummarized e -> new SessionState(sessionId, status, tenantId, userId, persona, metadata,
          title, createdAt, updatedAt, turns, narrativeState, closeReason, summary, characterId, inheritedTurns,
          escalationReason, context, totals, e.summary());
    };
  }

  private SessionState with(String newTitle, Instant at, List<TurnRecord> newTurns, JsonNode newNarrative,
      SessionTotals newTotals) {
    return new SessionState(sessionId, status, tenantId, userId, persona, metadata, newTitle, createdAt, at, newTurns,
        newNarrative, closeReason, summary, characterId, inheritedTurns, escalationReason, context, newTotals,
        rollingSummary);
  }

  private List<TurnRecord> append(TurnRecord turn) {
    List<TurnRecord> appended = new ArrayList<>(turns);
    appended.add(turn);
    return appended;
  }

  /**
   * A fork's inheritance: the original's turns before the fork point, numbered from 1, and totals that
   * count them as turns (the fork's next turn comes after them) but not their usage, which was billed
   * to the original. Only the newest {@link #TURNS_KEPT} of them stay in memory, as for any session.
   */
  private SessionState forked(ChatSession.SessionForked e) {
    List<TurnRecord> inherited = new ArrayList<>(e.turns().size());
    for (int i = 0; i < e.turns().size(); i++) {
      inherited.add(e.turns().get(i).numbered(i + 1));
    }
    SessionTotals counted = SessionTotals.of(inherited, createdAt);
    SessionTotals forkedTotals = new SessionTotals(counted.turns(), counted.completedTurns(), java.util.Map.of(),
        e.at(), counted.completedTurns(), null);
    return new SessionState(sessionId, status, tenantId, userId, persona, metadata, e.title(), createdAt, e.at(),
        inherited, e.narrativeState(), closeReason, summary, characterId, inherited.size(), escalationReason, context,
        forkedTotals, rollingSummary);
  }

  /** Changes the pending turn {@code turnId} without ending it (a checkpoint, a restart). */
  private SessionState update(String turnId, java.util.function.UnaryOperator<TurnRecord> change, Instant at) {
    return end(turnId, change, at, totals);
  }

  /** Ends the pending turn {@code turnId}; the totals count it only when it was pending here. */
  private SessionState end(String turnId, java.util.function.UnaryOperator<TurnRecord> ending, Instant at,
      SessionTotals ended) {
    List<TurnRecord> updated = new ArrayList<>(turns.size());
    boolean found = false;
    for (TurnRecord turn : turns) {
      boolean ends = !found && turn.turnId().equals(turnId) && turn.pending();
      found |= ends;
      updated.add(ends ? ending.apply(turn) : turn);
    }
    return with(title, at, updated, narrativeState, found ? ended : totals);
  }

  /** Every pending turn and the newest {@link #TURNS_KEPT} ended ones, in order. */
  private static List<TurnRecord> kept(List<TurnRecord> turns) {
    long ended = 0;
    for (TurnRecord turn : turns) {
      if (!turn.pending()) {
        ended++;
      }
    }
    if (ended <= TURNS_KEPT) {
      return List.copyOf(turns);
    }
    long dropping = ended - TURNS_KEPT;
    List<TurnRecord> kept = new ArrayList<>(turns.size());
    for (TurnRecord turn : turns) {
      if (dropping > 0 && !turn.pending()) {
        dropping--;
      } else {
        kept.add(turn);
      }
    }
    return List.copyOf(kept);
  }

  private static JsonNode shared(JsonNode node) {
    return node != null && node.isObject() && node.isEmpty() ? NOTHING : node;
  }

  private static ObjectNode emptyObject() {
    return JsonNodeFactory.instance.objectNode();
  }
}
