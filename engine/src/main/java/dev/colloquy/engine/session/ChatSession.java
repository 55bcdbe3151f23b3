package dev.colloquy.engine.session;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.BusyPolicy;
import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.RollingSummary;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnAttempt;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnProgress;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.observe.TurnLogContext;
import dev.colloquy.engine.observe.TurnMetrics;
import dev.colloquy.engine.turn.Transcript;
import dev.colloquy.engine.turn.TurnPlan;
import dev.colloquy.engine.turn.TurnSupervisor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * One chat session: the single writer of its history and narrative state. It accepts turns, runs
 * each in a {@link TurnSupervisor} child, journals how each ended, and serves the streams of running
 * and finished turns. Tokens are not journaled; a turn's outcome is, once.
 */
public final class ChatSession
    extends EventSourcedBehaviorWithEnforcedReplies<ChatSession.Command, ChatSession.Event, SessionState> {

  public static final EntityTypeKey<Command> ENTITY_KEY = EntityTypeKey.create(Command.class, "ChatSession");

  // ---- commands ----

  public sealed interface Command extends CborSerializable {}

  /**
   * Opens the session for {@code userId} of the tenant, or for the whole tenant when it is null.
   * {@code characterId} names the character a Writing Room chat talks to (null for other sessions).
   * {@code context} is a conversation the session starts from (a client that kept its own history
   * hands it over): its messages come before the session's own turns in every prompt.
   */
  public record Open(String tenantId, String userId, String persona, JsonNode metadata, String characterId,
      List<ChatMessage> context, ActorRef<SessionAnswer> replyTo) implements Command {

    public Open {
      context = List.copyOf(context);
    }

    /** A session that starts from nothing and talks to no character. */
    public Open(String tenantId, String userId, String persona, JsonNode metadata, ActorRef<SessionAnswer> replyTo) {
      this(tenantId, userId, persona, metadata, null, List.of(), replyTo);
    }
  }

  /** The session with its newest page of messages. */
  public record Get(ActorRef<SessionAnswer> replyTo) implements Command {}

  /**
   * The session with a page of at most {@code limit} messages: the newest, or those just before the
   * message {@code beforeMessageId} (null: the newest). See {@link SessionView.Page} for the part of
   * the history a session no longer keeps.
   */
  public record ReadMessages(String beforeMessageId, int limit, ActorRef<SessionAnswer> replyTo) implements Command {}

  /**
   * Run a turn, or join it when its turn id or idempotency key was accepted before. Empty
   * {@code models} means the default model. The reply's stream carries the turn's frames from the first.
   * {@code reopenIfIdle}: a session closed for idleness opens again for this turn (a Writing Room chat or
   * a fan-out conversation, which their contracts never close) instead of refusing it as closed.
   */
  public record StartTurn(
      String message,
      String turnId,
      String idempotencyKey,
      List<String> models,
      String traceId,
      boolean reopenIfIdle,
      ActorRef<TurnAnswer> replyTo)
      implements Command {

    /** A turn that a closed session refuses. */
    public StartTurn(String message, String turnId, String idempotencyKey, List<String> models, String traceId,
        ActorRef<TurnAnswer> replyTo) {
      this(message, turnId, idempotencyKey, models, traceId, false, replyTo);
    }
  }

  /** A stream of a turn's frames after {@code afterId}: live while it runs, replayed once it has ended. */
  public record JoinTurn(String turnId, long afterId, ActorRef<TurnAnswer> replyTo) implements Command {}

  public record CancelTurn(String turnId, ActorRef<TurnAnswer> replyTo) implements Command {}

  public record Close(String reason, ActorRef<SessionAnswer> replyTo) implements Command {}

  public record Delete(ActorRef<DeleteAnswer> replyTo) implements Command {}

  /** Gives the session the title its user chose; it wins over the automatic one (see SessionState#titleFor). */
  public record Rename(String title, ActorRef<SessionAnswer> replyTo) implements Command {}

  /** What a fork of this session at turn {@code atTurn} starts from (see {@link Forks}). */
  public record GetForkSource(int atTurn, ActorRef<ForkAnswer> replyTo) implements Command {}

  /**
   * Opens this session, which must be new, as the fork {@code source} describes. Its events come
   * through {@link OpeningEvents}: from another node they stream in before anything is journaled.
   */
  public record OpenFork(ForkSource source, ActorRef<SessionAnswer> replyTo) implements Command {}

  /**
   * Opens this session, which must be new, with the events of another installation's journal (checked
   * by {@link ImportedJournal}), for {@code userId} of {@code tenantId} (null: the whole tenant).
   */
  public record Import(String tenantId, String userId, OpeningEvents events, ActorRef<SessionAnswer> replyTo)
      implements Command {}

  /** An operator takes an escalated session back from its human: the agent answers again. */
  public record HandBack(ActorRef<SessionAnswer> replyTo) implements Command {}

  /**
   * {@code command} on behalf of a caller of {@code tenantId}, acting for {@code userId} or, when it
   * is null, for the whole tenant: a session of another tenant or another user answers it exactly as
   * a missing session would, so a foreign id reveals nothing.
   */
  public record ForTenant(
      String tenantId,
      String userId,
      @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
      @JsonSubTypes({
        @JsonSubTypes.Type(value = Get.class, name = "Get"),
        @JsonSubTypes.Type(value = ReadMessages.class, name = "ReadMessages"),
        @JsonSubTypes.Type(value = StartTurn.class, name = "StartTurn"),
        @JsonSubTypes.Type(value = JoinTurn.class, name = "JoinTurn"),
        @JsonSubTypes.Type(value = CancelTurn.class, name = "CancelTurn"),
        @JsonSubTypes.Type(value = Close.class, name = "Close"),
        @JsonSubTypes.Type(value = Delete.class, name = "Delete"),
        @JsonSubTypes.Type(value = Rename.class, name = "Rename"),
        @JsonSubTypes.Type(value = GetForkSource.class, name = "GetForkSource"),
        @JsonSubTypes.Type(value = HandBack.class, name = "HandBack")
      })
      Command command)
      implements Command {}

  /**
   * Close the session with reason "idle" if, by its own state, it has been idle for {@code idleTimeout}
   * (its tenant's, which the reaper looked up).
   */
  public record CloseIfIdle(Duration idleTimeout, ActorRef<SessionAnswer> replyTo) implements Command {}

  private record TurnFinished(TurnSupervisor.Ended ended) implements Command {}

  /** The events of {@code request} (an {@link OpenFork} or {@link Import}) have arrived, or {@code failure} says why not. */
  private record OpeningArrived(Command request, List<Event> events, Throwable failure) implements Command {}

  private record CheckpointReached(TurnSupervisor.Checkpoint checkpoint) implements Command {}

  /** Whether the tenant lets the turn a crash cut short run again. */
  private record FailoverDecided(boolean continues) implements Command {}

  private record SupervisorStopped(String turnId) implements Command {}

  private record FailInterruptedTurns() implements Command {}

  private record PassivateIfIdle() implements Command {
    static final PassivateIfIdle INSTANCE = new PassivateIfIdle();
  }

  /**
   * Sharding's stop message: the session passivates, or its shard moves to another node (a rebalance
   * after a node joined, or this node leaving). It stops once no turn runs here, so a turn is never
   * cut short by a move; sharding holds the session's other messages meanwhile and forces the stop
   * after its hand-off timeout. A node that stops without a drain stops its sessions at once (see
   * {@link #stoppingWithoutDrain}).
   */
  record StopWhenIdle() implements Command {
    static final StopWhenIdle INSTANCE = new StopWhenIdle();
  }

  // ---- replies: each command names the one it gets ----

  /** What {@link Open}, {@link Get}, {@link Close} and {@link CloseIfIdle} get. */
  public sealed interface SessionAnswer extends CborSerializable {}

  /** What {@link StartTurn}, {@link JoinTurn} and {@link CancelTurn} get. */
  public sealed interface TurnAnswer extends CborSerializable {}

  /** What {@link Delete} gets. */
  public sealed interface DeleteAnswer extends CborSerializable {}

  /** What {@link GetForkSource} gets. */
  public sealed interface ForkAnswer extends CborSerializable {}

  /**
   * How a fork of {@code fromSessionId} at its turn {@code atTurn} starts: {@code opening} holds the
   * original's opening (its owner, persona, metadata, character) and the {@link SessionForked} with
   * the {@code inheritedTurns} it inherits; {@code atTurnMessage} is the message of turn
   * {@code atTurn}, null when the fork is at the end of the session or that turn is no longer kept
   * (a long session's turn 1).
   */
  public record ForkSource(String fromSessionId, int atTurn, int inheritedTurns, String atTurnMessage,
      OpeningEvents opening) implements ForkAnswer {}

  public record SessionReply(SessionView session) implements SessionAnswer {}

  /**
   * A turn accepted, joined or being cancelled, and its runs (which provider and model each asks).
   * {@code frames} is the turn's stream, materialized on the session's node; read it once.
   * {@code ended} turns are replayed from the journal: {@code replayed} frames follow, and when the
   * client had already seen them all there is no stream ({@code frames} is null), as in the reply to a
   * cancel.
   */
  public record TurnReply(
      String turnId, String traceId, boolean existing, boolean ended, int replayed, TurnFeed frames,
      List<RunSpec> runs)
      implements TurnAnswer {

    static TurnReply live(TurnRecord turn, boolean existing, TurnFeed frames) {
      return new TurnReply(turn.turnId(), turn.traceId(), existing, false, 0, frames, turn.runs());
    }

    public boolean nothingFollows() {
      return frames == null;
    }
  }

  public record Done() implements DeleteAnswer {}

  /** A refused command, with the stable error code of API.md and, when one is involved, a turn id. */
  public record Rejected(String code, String message, String turnId)
      implements SessionAnswer, TurnAnswer, DeleteAnswer, ForkAnswer {}

  // ---- events ----

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonSubTypes({
    @JsonSubTypes.Type(value = SessionOpened.class, name = "SessionOpened"),
    @JsonSubTypes.Type(value = SessionRenamed.class, name = "SessionRenamed"),
    @JsonSubTypes.Type(value = TurnAccepted.class, name = "TurnAccepted"),
    @JsonSubTypes.Type(value = TurnCompleted.class, name = "TurnCompleted"),
    @JsonSubTypes.Type(value = TurnFailed.class, name = "TurnFailed"),
    @JsonSubTypes.Type(value = TurnCancelled.class, name = "TurnCancelled"),
    @JsonSubTypes.Type(value = TurnCheckpointed.class, name = "TurnCheckpointed"),
    @JsonSubTypes.Type(value = TurnRestarted.class, name = "TurnRestarted"),
    @JsonSubTypes.Type(value = SessionForked.class, name = "SessionForked"),
    @JsonSubTypes.Type(value = NarrativeStateMerged.class, name = "NarrativeStateMerged"),
    @JsonSubTypes.Type(value = SessionClosed.class, name = "SessionClosed"),
    @JsonSubTypes.Type(value = SessionReopened.class, name = "SessionReopened"),
    @JsonSubTypes.Type(value = SessionDeleted.class, name = "SessionDeleted"),
    @JsonSubTypes.Type(value = SessionEscalated.class, name = "SessionEscalated"),
    @JsonSubTypes.Type(value = SessionHandedBack.class, name = "SessionHandedBack"),
    @JsonSubTypes.Type(value = HistorySummarized.class, name = "HistorySummarized")
  })
  public sealed interface Event extends CborSerializable {
    Instant at();
  }

  /**
   * {@code userId} is null for a session of the whole tenant, as for every session journaled before
   * sessions had users; {@code characterId} is null but for Writing Room chats, and in every opening
   * journaled before chats had characters.
   */
  public record SessionOpened(String sessionId, String tenantId, String userId, String persona, JsonNode metadata,
      Instant at, String characterId, List<ChatMessage> context)
      implements Event {

    /** An opening journaled before sessions could start from a conversation has none. */
    public SessionOpened {
      context = context == null ? List.of() : List.copyOf(context);
    }

    /** A session that starts from nothing and talks to no character. */
    public SessionOpened(String sessionId, String tenantId, String userId, String persona, JsonNode metadata,
        Instant at) {
      this(sessionId, tenantId, userId, persona, metadata, at, null, List.of());
    }
  }

  /** The session's title: the automatic one from its first message, or one its user chose ({@link Rename}). */
  public record SessionRenamed(String title, Instant at) implements Event {}

  public record TurnAccepted(
      String turnId, String idempotencyKey, String traceId, String userMessageId, String message,
      List<RunSpec> runs, Instant at)
      implements Event {}

  /**
   * How a turn ended, as journaled: a {@link TurnEnding} with the turn's outcome. Each kind of ending
   * has its own record because the records' names and fields are the journal's schema.
   */
  public sealed interface TurnEnded extends Event {

    String turnId();

    TurnOutcome outcome();

    TurnEnding ending();

    static TurnEnded of(String turnId, TurnEnding ending, TurnOutcome outcome, Instant at) {
      return switch (ending) {
        case TurnEnding.Completed completed -> new TurnCompleted(turnId, completed.messageId(), outcome, at);
        case TurnEnding.Failed failed -> new TurnFailed(turnId, failed.code(), failed.message(), outcome, at);
        case TurnEnding.Cancelled cancelled -> new TurnCancelled(turnId, cancelled.reason(), outcome, at);
      };
    }
  }

  public record TurnCompleted(String turnId, String messageId, TurnOutcome outcome, Instant at) implements TurnEnded {
    @Override
    public TurnEnding ending() {
      return TurnEnding.Completed.of(messageId, outcome);
    }
  }

  public record TurnFailed(String turnId, String code, String message, TurnOutcome outcome, Instant at)
      implements TurnEnded {
    @Override
    public TurnEnding ending() {
      return new TurnEnding.Failed(code, message);
    }
  }

  public record TurnCancelled(String turnId, String reason, TurnOutcome outcome, Instant at) implements TurnEnded {
    @Override
    public TurnEnding ending() {
      return new TurnEnding.Cancelled(reason);
    }
  }

  /**
   * What a running turn streamed since its previous checkpoint, and the frame ids it may stream
   * before the next (see {@link TurnProgress}); the first is journaled with the turn's acceptance.
   */
  public record TurnCheckpointed(String turnId, TurnProgress.Checkpoint checkpoint, Instant at) implements Event {}

  /** The turn's node was lost; this node runs the turn again with {@code runs}. */
  public record TurnRestarted(String turnId, TurnAttempt cutShort, List<RunSpec> runs, Instant at) implements Event {}

  /**
   * The session, just opened, is a fork of {@code fromSessionId} at its turn {@code atTurn}: it starts
   * with that session's turns before it, as they ended, its title and its narrative state then.
   * The inherited turns are not billed again.
   */
  public record SessionForked(String fromSessionId, int atTurn, String title, List<TurnRecord> turns,
      JsonNode narrativeState, Instant at) implements Event {

    public SessionForked {
      turns = List.copyOf(turns);
    }
  }

  public record NarrativeStateMerged(JsonNode delta, Instant at) implements Event {}

  /** Turn {@code turnId} handed the session to a human, for {@code reason}; its webhook leaves from the outbox. */
  public record SessionEscalated(String turnId, EscalationReason reason, Instant at) implements Event {}

  /**
   * Turn {@code turnId} summarized the conversation its prompt could no longer hold: from now on the
   * prompt carries {@code summary} in place of the messages it covers.
   */
  public record HistorySummarized(String turnId, RollingSummary summary, Instant at) implements Event {}

  /** An operator handed the session back: the agent answers again. */
  public record SessionHandedBack(Instant at) implements Event {}

  public record SessionClosed(String reason, SessionSummary summary, Instant at) implements Event {}

  /**
   * Turn {@code turnId} opened the session again after it was closed for idleness. What it amounted to
   * until then was billed with its close; from here on a new stretch is counted, to its next close.
   */
  public record SessionReopened(String turnId, Instant at) implements Event {}

  /**
   * {@code summary} is what the session amounted to when it was deleted, for billing; events
   * journaled before it was carried have none.
   */
  public record SessionDeleted(Instant at, SessionSummary summary) implements Event {}

  // ---- error codes ----

  public static final String SESSION_NOT_FOUND = "SESSION_NOT_FOUND";
  public static final String SESSION_EXISTS = "SESSION_EXISTS";
  public static final String SESSION_CLOSED = "SESSION_CLOSED";
  public static final String TURN_IN_PROGRESS = "TURN_IN_PROGRESS";
  public static final String TURN_QUEUE_FULL = "TURN_QUEUE_FULL";
  public static final String TURN_LIMIT_REACHED = "TURN_LIMIT_REACHED";
  public static final String TURN_NOT_FOUND = "TURN_NOT_FOUND";
  public static final String TURN_ENDED = "TURN_ENDED";
  /** A repeated idempotency key or turn id with another message (as the IETF Idempotency-Key draft answers it). */
  public static final String IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED";
  public static final String UNKNOWN_MODEL = "UNKNOWN_MODEL";
  public static final String TOO_MANY_MODELS = "TOO_MANY_MODELS";
  public static final String INTERRUPTED = TurnEnding.INTERRUPTED;
  public static final String SHUTTING_DOWN = "SHUTTING_DOWN";
  public static final String INTERNAL_ERROR = "INTERNAL_ERROR";
  public static final String INVALID_TITLE = "INVALID_TITLE";
  public static final String SESSION_NOT_ESCALATED = "SESSION_NOT_ESCALATED";

  /** Internal: the reaper's answer when the session is not idle; it never reaches a client. */
  private static final String NOT_IDLE = "NOT_IDLE";
  static final String IDLE_REASON = "idle";

  private final String sessionId;
  private final ActorContext<Command> context;
  private final EngineServices services;
  private final ActorRef<ClusterSharding.ShardCommand> shard;
  /** Where this session's turn supervisors report; made with the first turn (an idle session needs none). */
  private ActorRef<TurnSupervisor.Report> turnReports;
  /**
   * The pending check whether this session has been idle for the passivation timeout (null: none), and
   * when it was last active: one check at a time, re-armed for the remainder when the session was
   * active meanwhile, rather than a timer restarted by every command.
   */
  private Cancellable passivationCheck;
  private long lastActiveNanos;
  /** Supervisors of the turns running now (at most one), by turn id. */
  private final Map<String, ActorRef<TurnSupervisor.Command>> supervisors = new HashMap<>();
  /**
   * The transcripts of the turns accepted and not yet ended in this incarnation (running or queued),
   * by turn id: their streams read them, and a turn's supervisor writes to its own.
   */
  private final Map<String, Transcript> transcripts = new HashMap<>();
  /** A close or delete waits for the running turn to be cancelled; no queued turn starts meanwhile. */
  private boolean closing;
  /** Set from recovery until the turns a crash left pending are journaled as interrupted; commands wait. */
  private boolean failingInterruptedTurns;
  /** Set while a fork's or import's events are on their way here (see {@link #awaitOpening}). */
  private boolean awaitingOpening;
  /** Whether this incarnation recovered, so that leaving memory is counted only after coming in. */
  private boolean loaded;
  /** Set once this incarnation has asked sharding to stop it. */
  private boolean leaving;
  /**
   * Turns journaled as ended whose supervisor has yet to send the terminal frame: the supervisors are
   * this session's children, so stopping before they have would end their streams as interrupted.
   */
  private final Set<String> ending = new HashSet<>();
  /** Set once sharding has asked this incarnation to stop ({@link StopWhenIdle}): no turn starts here any more. */
  private boolean stopping;
  /** Set while this session holds one of the node's places for checkpoint writes (see {@link #onCheckpoint}). */
  private boolean writingCheckpoint;

  private ChatSession(
      String sessionId,
      ActorContext<Command> context,
      EngineServices services,
      ActorRef<ClusterSharding.ShardCommand> shard) {
    super(persistenceId(sessionId));
    this.sessionId = sessionId;
    this.context = context;
    this.services = services;
    this.shard = shard;
  }

  private ActorRef<TurnSupervisor.Report> turnReports() {
    if (turnReports == null) {
      turnReports = context.messageAdapter(TurnSupervisor.Report.class, report -> switch (report) {
        case TurnSupervisor.Ended ended -> new TurnFinished(ended);
        case TurnSupervisor.Checkpoint checkpoint -> new CheckpointReached(checkpoint);
      });
    }
    return turnReports;
  }

  public static PersistenceId persistenceId(String sessionId) {
    return PersistenceId.of(ENTITY_KEY.name(), sessionId);
  }

  /** The behaviour of one session; {@code shard} may be null outside sharding (tests), then it never passivates. */
  public static Behavior<Command> create(
      String sessionId, EngineServices services, ActorRef<ClusterSharding.ShardCommand> shard) {
    return Behaviors.setup(context -> new ChatSession(sessionId, context, services, shard));
  }

  /** Registers the entity with cluster sharding on this node; returns the region to send envelopes to. */
  public static ActorRef<ShardingEnvelope<Command>> init(ActorSystem<?> system, EngineServices services) {
    return ClusterSharding.get(system)
        .init(Entity.of(ENTITY_KEY, entity -> create(entity.getEntityId(), services, entity.getShard()))
            .withStopMessage(StopWhenIdle.INSTANCE));
  }

  @Override
  public SessionState emptyState() {
    return SessionState.empty(sessionId);
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(services.session().snapshotEvery(), 2);
  }

  /**
   * The read side's tag, which its projection's query reads by. The events the projection has nothing
   * to do with carry none, so that its query neither reads nor deserializes them again: a turn's
   * checkpoints (a turn shows in the read tables once it ends; they are a turn's largest events, its
   * frames), the narrative state merged after every completed turn and a rolling summary (both only
   * for the session's own prompt). Those journaled before were tagged; the projection still skips them.
   */
  @Override
  public java.util.Set<String> tagsFor(Event event) {
    return switch (event) {
      case TurnCheckpointed ignored -> java.util.Set.of();
      case NarrativeStateMerged ignored -> java.util.Set.of();
      case HistorySummarized ignored -> java.util.Set.of();
      default -> java.util.Set.of(SessionTags.of(sessionId));
    };
  }

  @Override
  public SignalHandler<SessionState> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), state -> {
          loaded = true;
          services.metrics().sessionLoaded();
          if (!state.pendingTurns().isEmpty()) {
            failingInterruptedTurns = true;
            context.getSelf().tell(new FailInterruptedTurns());
          }
          schedulePassivation();
        })
        .onSignal(PostStop.instance(), state -> {
          cancelPassivationCheck();
          // A checkpoint whose write failed stopped the session before it could give its place back.
          checkpointWriteEnded();
          if (loaded) {
            services.metrics().sessionUnloaded();
          }
          // Streams of turns that will not end here (the session stopped before journaling them) end
          // as the journal will record them once the session recovers: interrupted.
          transcripts.values().forEach(transcript -> transcript.lost(
              TurnEnding.Failed.interrupted("The turn's outcome could not be recorded; it is recorded as interrupted")));
        })
        .build();
  }

  @Override
  public EventHandler<SessionState, Event> eventHandler() {
    // A plain function, not the handler builder: every session in memory would keep its own builder's objects.
    return SessionState::apply;
  }

  @Override
  public CommandHandlerWithReply<Command, Event, SessionState> commandHandler() {
    return (state, command) -> {
      ReplyEffect<Event, SessionState> effect = handle(state, command);
      if (holdsNothing(state, command)) {
        leaveMemory();
      }
      return effect;
    };
  }

  /**
   * A session that was never opened (any id a client makes up) or was deleted has nothing to keep
   * in memory once it has answered: it leaves at once rather than after the passivation timeout,
   * so that requests for random ids cost no memory. An {@code Open} of a new id, and a fork or import
   * while or once its events arrive, are the exceptions.
   */
  private boolean holdsNothing(SessionState state, Command command) {
    boolean opening = (command instanceof Open || command instanceof OpeningArrived arrived && arrived.failure() == null)
        && state.status() == SessionStatus.NEW;
    return !state.exists() && !opening && !awaitingOpening && supervisors.isEmpty() && transcripts.isEmpty();
  }

  /** Asks sharding to stop this entity; messages that arrive meanwhile start it again. */
  private void leaveMemory() {
    if (shard != null && !leaving) {
      leaving = true;
      cancelPassivationCheck();
      shard.tell(new ClusterSharding.Passivate<>(context.getSelf()));
    }
  }

  private ReplyEffect<Event, SessionState> handle(SessionState state, Command command) {
    if (failingInterruptedTurns && !(command instanceof FailInterruptedTurns || command instanceof FailoverDecided)) {
      // The turns a crash cut short are still pending until they are journaled as interrupted;
      // a command seeing them now would, say, refuse a new turn as if the dead one were running.
      return Effect().stash();
    }
    if (!(command instanceof PassivateIfIdle)) {
      schedulePassivation();
    }
    return switch (command) {
      case Open open -> onOpen(state, open);
      case ForTenant scoped -> state.foreignTo(scoped.tenantId(), scoped.userId())
          ? answerAsIfMissing(scoped.command())
          : handle(state, scoped.command());
      case Get get -> Effect().reply(get.replyTo(), state.exists() ? new SessionReply(state.view()) : notFound());
      case ReadMessages read -> Effect().reply(read.replyTo(),
          state.exists() ? new SessionReply(state.view(read.beforeMessageId(), read.limit())) : notFound());
      case StartTurn start -> onStartTurn(state, start);
      case JoinTurn join -> onJoinTurn(state, join);
      case CancelTurn cancel -> onCancelTurn(state, cancel);
      case Close close -> onClose(state, close);
      case CloseIfIdle idle -> onCloseIfIdle(state, idle);
      case Delete delete -> onDelete(state, delete);
      case Rename rename -> onRename(state, rename);
      case GetForkSource get -> Effect().reply(get.replyTo(), Forks.source(context.getSystem(), state, get.atTurn()));
      case OpenFork fork -> awaitOpening(state, fork, fork.replyTo(), fork.source().opening());
      case Import imported -> awaitOpening(state, imported, imported.replyTo(), imported.events());
      case OpeningArrived arrived -> onOpeningArrived(state, arrived);
      case HandBack handBack -> onHandBack(state, handBack);
      case TurnFinished finished -> onTurnFinished(state, finished.ended());
      case CheckpointReached reached -> onCheckpoint(state, reached.checkpoint());
      case FailoverDecided decided -> onFailoverDecided(state, decided.continues());
      case SupervisorStopped stopped -> onSupervisorStopped(state, stopped.turnId());
      case FailInterruptedTurns fail -> onFailInterruptedTurns(state);
      case PassivateIfIdle idle -> onPassivateIfIdle();
      case StopWhenIdle stop -> onStopWhenIdle();
    };
  }

  private ReplyEffect<Event, SessionState> onOpen(SessionState state, Open open) {
    if (state.status() != SessionStatus.NEW) {
      return Effect().reply(open.replyTo(),
          new Rejected(SESSION_EXISTS, "A session with this id exists or existed; a session id is accepted once", null));
    }
    long persisting = System.nanoTime();
    return Effect()
        .persist(new SessionOpened(sessionId, open.tenantId(), open.userId(), open.persona(), open.metadata(),
            Instant.now(), open.characterId(), open.context()))
        .thenRun(opened -> journaled(persisting))
        .thenReply(open.replyTo(), opened -> new SessionReply(opened.view()));
  }

  /**
   * A fork or import opens this session once its events are here: from another node they stream in
   * (see {@link OpeningEvents}), and nothing is journaled until all have arrived, so a transfer that
   * fails leaves nothing behind. Meanwhile the session stays in memory and refuses another opening.
   */
  private ReplyEffect<Event, SessionState> awaitOpening(SessionState state, Command request,
      ActorRef<SessionAnswer> replyTo, OpeningEvents events) {
    if (state.status() != SessionStatus.NEW || awaitingOpening) {
      return Effect().reply(replyTo, new Rejected(SESSION_EXISTS, "A session with this id exists or existed", null));
    }
    awaitingOpening = true;
    context.pipeToSelf(events.events(context.getSystem()), (arrived, failure) -> new OpeningArrived(request, arrived, failure));
    return Effect().noReply();
  }

  private ReplyEffect<Event, SessionState> onOpeningArrived(SessionState state, OpeningArrived arrived) {
    awaitingOpening = false;
    stopIfAsked();
    return switch (arrived.request()) {
      case OpenFork fork -> arrived.failure() != null ? openingLost(fork.replyTo(), arrived.failure(), "fork's turns")
          : onOpenFork(fork, arrived.events());
      case Import imported -> arrived.failure() != null ? openingLost(imported.replyTo(), arrived.failure(), "imported journal")
          : onImport(imported, arrived.events());
      default -> throw new IllegalStateException("Not an opening: " + arrived.request());
    };
  }

  private ReplyEffect<Event, SessionState> openingLost(ActorRef<SessionAnswer> replyTo, Throwable failure, String what) {
    context.getLog().warn("The {} did not arrive: {}", what, failure.getClass().getSimpleName());
    return Effect().reply(replyTo, new Rejected(ErrorCode.SESSION_UNAVAILABLE.name(), "The " + what
        + " did not arrive from the node that holds them; nothing was saved: try again", null));
  }

  /** {@code events} are the original's opening and what the fork inherits, journaled anew for this session now. */
  private ReplyEffect<Event, SessionState> onOpenFork(OpenFork fork, List<Event> events) {
    Instant now = Instant.now();
    SessionOpened original = (SessionOpened) events.get(0);
    SessionForked forked = (SessionForked) events.get(1);
    long persisting = System.nanoTime();
    return Effect()
        .persist(List.of(new SessionOpened(sessionId, original.tenantId(), original.userId(), original.persona(),
                original.metadata(), now, original.characterId(), original.context()),
            new SessionForked(forked.fromSessionId(), forked.atTurn(), forked.title(), forked.turns(),
                forked.narrativeState(), now)))
        .thenRun(opened -> journaled(persisting))
        .thenReply(fork.replyTo(), opened -> new SessionReply(opened.view()));
  }

  /** An imported journal that ends with turns pending is recovered as a crash would be: they end as interrupted. */
  private ReplyEffect<Event, SessionState> onImport(Import imported, List<Event> events) {
    long persisting = System.nanoTime();
    return Effect()
        .persist(ImportedJournal.owned(sessionId, imported.tenantId(), imported.userId(), events))
        .thenRun(after -> {
          journaled(persisting);
          if (!after.pendingTurns().isEmpty()) {
            failingInterruptedTurns = true;
            context.getSelf().tell(new FailInterruptedTurns());
          }
        })
        .thenReply(imported.replyTo(), after -> new SessionReply(after.view()));
  }

  private ReplyEffect<Event, SessionState> onStartTurn(SessionState state, StartTurn start) {
    if (!state.exists()) {
      return Effect().reply(start.replyTo(), notFound());
    }
    Optional<TurnRecord> existing = Optional.empty();
    if (start.idempotencyKey() != null) {
      existing = state.turnByIdempotencyKey(start.idempotencyKey());
    }
    if (existing.isEmpty() && start.turnId() != null) {
      existing = state.turn(start.turnId());
    }
    if (existing.isPresent()) {
      if (!existing.get().asks(start.message(), start.models())) {
        String reused = start.idempotencyKey() != null && existing.get().idempotencyKey() != null
            && start.idempotencyKey().equals(existing.get().idempotencyKey()) ? "idempotency_key" : "turn_id";
        return Effect().reply(start.replyTo(), new Rejected(IDEMPOTENCY_KEY_REUSED,
            "This " + reused + " was used for another request; send a new one", null));
      }
      return Effect().reply(start.replyTo(), subscribe(existing.get(), 0));
    }
    boolean reopening = !state.open() && start.reopenIfIdle() && state.closedForIdleness();
    if (!state.open() && !reopening) {
      return Effect().reply(start.replyTo(), new Rejected(SESSION_CLOSED, "The session is closed", null));
    }
    if (services.turns().draining()) {
      return Effect().reply(start.replyTo(), new Rejected(SHUTTING_DOWN,
          "This node is shutting down and takes no new turns; try again in a moment", null));
    }
    if (stopping) {
      return Effect().reply(start.replyTo(), new Rejected(SHUTTING_DOWN,
          "This session is moving to another node; try again in a moment", null));
    }
    Rejected invalid = validate(start);
    if (invalid != null) {
      return Effect().reply(start.replyTo(), invalid);
    }
    if (!state.hasRoomForTurn(services.session().maxTurns())) {
      return Effect().reply(start.replyTo(), new Rejected(TURN_LIMIT_REACHED, "This session has reached its limit of "
          + services.session().maxTurns() + " turns; open a new session to go on", null));
    }
    var running = state.runningTurn();
    if (running.isPresent() && services.session().busyPolicy() == BusyPolicy.REJECT) {
      return Effect().reply(start.replyTo(), new Rejected(TURN_IN_PROGRESS,
          "Turn " + running.get().turnId() + " is still running", running.get().turnId()));
    }
    if (state.pendingTurns().size() > services.session().maxQueuedTurns()) {
      return Effect().reply(start.replyTo(), new Rejected(TURN_QUEUE_FULL,
          "Too many turns are waiting in this session", running.map(TurnRecord::turnId).orElse(null)));
    }
    Instant now = Instant.now();
    String turnId = start.turnId() != null ? start.turnId() : UUID.randomUUID().toString();
    List<String> models = start.models().isEmpty() ? List.of(services.models().defaultModel()) : start.models();
    List<RunSpec> runs = models.stream().map(model -> services.models().resolve(model).orElseThrow())
        .map(model -> new RunSpec(UUID.randomUUID().toString(), model.provider(), model.model())).toList();
    List<Event> events = new ArrayList<>();
    if (reopening) {
      events.add(new SessionReopened(turnId, now));
    }
    state.titleFor(start.message()).ifPresent(title -> events.add(new SessionRenamed(title, now)));
    events.add(new TurnAccepted(turnId, start.idempotencyKey(), start.traceId(), UUID.randomUUID().toString(),
        start.message(), runs, now));
    events.add(new TurnCheckpointed(turnId, TurnCheckpoints.opening(0, services.session().checkpoint()), now));
    SessionState accepted = applied(state, events);
    TurnRecord turn = accepted.turn(turnId).orElseThrow();
    Transcript transcript = transcriptOf(turn);
    if (running.isEmpty()) {
      // The turn starts while its acceptance is being journaled, so that the write hides behind the
      // model's own latency. Nothing it streams is seen before the write is confirmed: its only
      // reader is the one in the reply, which is sent after the write (a join waits for it too, as
      // every command does while the session persists). Should the write fail, the session stops,
      // and its children with it: the model call is cancelled and the turn never existed.
      startTurn(accepted, turn);
    }
    long persisting = System.nanoTime();
    return Effect()
        .persist(events)
        .thenRun(after -> journaled(persisting))
        .thenReply(start.replyTo(), after -> TurnReply.live(turn, false, TurnFeed.live(context.getSystem(), transcript, 0)));
  }

  /** The one rule for what a turn may ask; every API that starts turns answers with these codes. */
  private Rejected validate(StartTurn start) {
    if (start.message() == null || start.message().isBlank()) {
      return new Rejected(ErrorCode.EMPTY_MESSAGE.name(), "The message must not be empty", null);
    }
    if (start.models().size() > services.llm().maxModelsPerTurn()) {
      return new Rejected(TOO_MANY_MODELS,
          "A turn may run at most " + services.llm().maxModelsPerTurn() + " models", null);
    }
    for (String model : start.models()) {
      if (!services.models().contains(model)) {
        return new Rejected(UNKNOWN_MODEL,
            "Unknown model '" + model + "'; known models (as provider/model or by the plain name): "
                + services.models().ids(), null);
      }
    }
    return null;
  }

  private void startTurn(SessionState state, TurnRecord turn) {
    TurnPlan plan = new TurnPlan(sessionId, state.tenantId(), turn.turnId(), turn.traceId(), turn.message(),
        state.persona(), state.history(services.session().historyWindow()), turn.runs(), state.userId(),
        state.completedTurns(), state.handedOff(), state.storyState(),
        state.earlier(services.session().historyWindow()));
    ActorRef<TurnSupervisor.Command> supervisor = context.spawn(
        TurnSupervisor.create(plan, transcriptOf(turn), services, turnReports()), "turn-" + turn.turnId());
    context.watchWith(supervisor, new SupervisorStopped(turn.turnId()));
    supervisors.put(turn.turnId(), supervisor);
  }

  /**
   * The transcript of a turn accepted and not yet ended here, made when it is first needed: after
   * the frames of the attempts lost nodes cut short, releasing what the turn's checkpoints reserved.
   */
  private Transcript transcriptOf(TurnRecord turn) {
    return transcripts.computeIfAbsent(turn.turnId(),
        id -> TurnCheckpoints.transcript(sessionId, turn, services.session().checkpoint()));
  }

  private ReplyEffect<Event, SessionState> onJoinTurn(SessionState state, JoinTurn join) {
    var turn = state.turn(join.turnId());
    if (turn.isEmpty()) {
      return Effect().reply(join.replyTo(), turnNotFound());
    }
    return Effect().reply(join.replyTo(), subscribe(turn.get(), join.afterId()));
  }

  /** A stream from the running turn or, for a turn not started yet, from when it starts; or the replay of an ended one. */
  private TurnReply subscribe(TurnRecord turn, long afterId) {
    if (!turn.pending()) {
      List<TurnFrame> frames = replay(turn, afterId);
      TurnFeed replay = frames.isEmpty() ? null : TurnFeed.replay(context.getSystem(), frames);
      return new TurnReply(turn.turnId(), turn.traceId(), true, true, frames.size(), replay, turn.runs());
    }
    return TurnReply.live(turn, true, TurnFeed.live(context.getSystem(), transcriptOf(turn), afterId));
  }

  private ReplyEffect<Event, SessionState> onCancelTurn(SessionState state, CancelTurn cancel) {
    var turn = state.turn(cancel.turnId());
    if (turn.isEmpty()) {
      return Effect().reply(cancel.replyTo(), turnNotFound());
    }
    if (!turn.get().pending()) {
      return Effect().reply(cancel.replyTo(), new Rejected(TURN_ENDED,
          "The turn has already ended (" + turn.get().status().name().toLowerCase() + ")", cancel.turnId()));
    }
    var supervisor = supervisors.get(cancel.turnId());
    if (supervisor != null) {
      supervisor.tell(new TurnSupervisor.Cancel("cancelled"));
      return Effect().reply(cancel.replyTo(), TurnReply.live(turn.get(), true, null));
    }
    TurnCancelled cancelled = new TurnCancelled(cancel.turnId(), "cancelled", TurnOutcome.nothing(), Instant.now());
    return Effect()
        .persist(cancelled)
        .thenRun(after -> notifyWaiting(after, List.of(cancel.turnId())))
        .thenReply(cancel.replyTo(), after -> TurnReply.live(turn.get(), true, null));
  }

  private ReplyEffect<Event, SessionState> onClose(SessionState state, Close close) {
    if (!state.exists()) {
      return Effect().reply(close.replyTo(), notFound());
    }
    if (!state.open()) {
      return Effect().reply(close.replyTo(), new SessionReply(state.view()));
    }
    if (cancelRunningFirst()) {
      return Effect().stash();
    }
    Instant now = Instant.now();
    List<Event> events = cancelQueued(state, "session_closed", now);
    events.add(new SessionClosed(close.reason(), applied(state, events).summarize(now), now));
    List<String> queued = state.pendingTurns().stream().map(TurnRecord::turnId).toList();
    return Effect()
        .persist(events)
        .thenRun(closed -> {
          services.metrics().sessionClosed(close.reason());
          notifyWaiting(closed, queued);
        })
        .thenReply(close.replyTo(), closed -> new SessionReply(closed.view()));
  }

  private ReplyEffect<Event, SessionState> onRename(SessionState state, Rename rename) {
    if (!state.exists()) {
      return Effect().reply(rename.replyTo(), notFound());
    }
    var problem = SessionState.titleProblem(rename.title());
    if (problem.isPresent()) {
      return Effect().reply(rename.replyTo(), new Rejected(INVALID_TITLE, problem.get(), null));
    }
    long persisting = System.nanoTime();
    return Effect()
        .persist(new SessionRenamed(rename.title().strip(), Instant.now()))
        .thenRun(renamed -> journaled(persisting))
        .thenReply(rename.replyTo(), renamed -> new SessionReply(renamed.view()));
  }

  /** The reaper's read table may lag behind the journal, so the entity checks its own state before it closes. */
  private SessionClosed idleClosed(SessionState state, Duration idleTimeout) {
    Instant closedAt = state.idleDeadline(idleTimeout);
    return new SessionClosed(IDLE_REASON, state.summarize(closedAt), closedAt);
  }

  private ReplyEffect<Event, SessionState> onCloseIfIdle(SessionState state, CloseIfIdle idle) {
    Instant now = Instant.now();
    if (!supervisors.isEmpty() || !state.idleAt(now, idle.idleTimeout())) {
      return Effect().reply(idle.replyTo(), new Rejected(NOT_IDLE, "The session is not idle", null));
    }
    long persisting = System.nanoTime();
    return Effect()
        .persist(idleClosed(state, idle.idleTimeout()))
        .thenRun(closed -> {
          journaled(persisting);
          services.metrics().sessionClosed(IDLE_REASON);
        })
        .thenReply(idle.replyTo(), closed -> new SessionReply(closed.view()));
  }

  private ReplyEffect<Event, SessionState> onDelete(SessionState state, Delete delete) {
    if (!state.exists()) {
      return Effect().reply(delete.replyTo(), notFound());
    }
    if (cancelRunningFirst()) {
      return Effect().stash();
    }
    Instant now = Instant.now();
    List<Event> events = cancelQueued(state, "session_deleted", now);
    events.add(new SessionDeleted(now, applied(state, events).summarize(now)));
    List<String> queued = state.pendingTurns().stream().map(TurnRecord::turnId).toList();
    return Effect()
        .persist(events)
        .thenRun(deleted -> {
          notifyWaiting(deleted, queued);
          leaveMemory();
        })
        .thenReply(delete.replyTo(), deleted -> new Done());
  }

  private ReplyEffect<Event, SessionState> onHandBack(SessionState state, HandBack handBack) {
    if (!state.exists()) {
      return Effect().reply(handBack.replyTo(), notFound());
    }
    if (!state.handedOff()) {
      return Effect().reply(handBack.replyTo(), new Rejected(SESSION_NOT_ESCALATED,
          "The session is " + state.status().name().toLowerCase() + ", not escalated: there is nothing to hand back",
          null));
    }
    return Effect()
        .persist(new SessionHandedBack(Instant.now()))
        .thenReply(handBack.replyTo(), after -> new SessionReply(after.view()));
  }

  /** Cancels the running turn and returns true when there is one; the command is then stashed until it ends. */
  private boolean cancelRunningFirst() {
    if (supervisors.isEmpty()) {
      return false;
    }
    closing = true;
    supervisors.values().forEach(supervisor -> supervisor.tell(new TurnSupervisor.Cancel("session_closed")));
    return true;
  }

  private static List<Event> cancelQueued(SessionState state, String reason, Instant now) {
    List<Event> events = new ArrayList<>();
    for (TurnRecord turn : state.pendingTurns()) {
      events.add(new TurnCancelled(turn.turnId(), reason, TurnOutcome.nothing(), now));
    }
    return events;
  }

  private static SessionState applied(SessionState state, List<Event> events) {
    SessionState after = state;
    for (Event event : events) {
      after = after.apply(event);
    }
    return after;
  }

  /**
   * The streams of turns that ended without running get their terminal frame: such a turn has no
   * layout, so it is the reserved id's, as in every replay of it.
   */
  private void notifyWaiting(SessionState state, List<String> turnIds) {
    for (String turnId : turnIds) {
      Transcript transcript = transcripts.remove(turnId);
      if (transcript != null) {
        state.turn(turnId).ifPresent(turn -> transcript.lost(turn.ending()));
      }
    }
  }

  private List<TurnFrame> replay(TurnRecord turn, long afterId) {
    return Transcript.replay(sessionId, turn.turnId(), turn.traceId(), turn.attempts(), turn.runs(), turn.outcome(),
        turn.ending(),
        afterId);
  }

  private ReplyEffect<Event, SessionState> onTurnFinished(SessionState state, TurnSupervisor.Ended ended) {
    var turn = state.turn(ended.turnId());
    if (turn.isEmpty() || !turn.get().pending()) {
      return Effect().noReply();
    }
    Instant now = Instant.now();
    List<Event> events = new ArrayList<>();
    TurnEnded event = TurnEnded.of(ended.turnId(), ended.ending(), ended.outcome(), now);
    events.add(event);
    if (ended.ending() instanceof TurnEnding.Completed) {
      events.add(new NarrativeStateMerged(state.apply(event).narrativeDeltaAfter(ended.outcome()), now));
    }
    if (ended.summary() != null) {
      events.add(new HistorySummarized(ended.turnId(), ended.summary(), now));
    }
    if (ended.outcome().escalated() && !state.handedOff()) {
      events.add(new SessionEscalated(ended.turnId(), ended.outcome().agent().escalation(), now));
    }
    long persisting = System.nanoTime();
    return Effect()
        .persist(events)
        .thenRun(after -> {
          journaled(persisting);
          TurnMetrics.recordEnded(services.metrics(), ended.ending(), ended.outcome());
          var supervisor = supervisors.remove(ended.turnId());
          transcripts.remove(ended.turnId());
          if (supervisor != null) {
            ending.add(ended.turnId());
            supervisor.tell(new TurnSupervisor.OutcomePersisted());
          }
          startNextQueued(after);
        })
        .thenNoReply()
        .thenUnstashAll();
  }

  private void startNextQueued(SessionState state) {
    if (!closing && supervisors.isEmpty() && !services.turns().draining() && !stopping) {
      state.runningTurn().ifPresent(next ->
          startTurn(state, next));
    }
    stopIfAsked();
  }

  private ReplyEffect<Event, SessionState> onStopWhenIdle() {
    stopping = true;
    cancelPassivationCheck();
    return idle() || stoppingWithoutDrain() ? Effect().stop().thenNoReply() : Effect().noReply();
  }

  /**
   * The node is stopping without a drain: its embedding program closed it, or the cluster downed it,
   * and the survivors start this session elsewhere once the removal margin has passed. Waiting for the
   * turn would keep a second writer; the turn ends interrupted when the session next recovers, as a
   * crash's would. (A node stopped by a signal drains first, and its turns end within the drain.)
   */
  private boolean stoppingWithoutDrain() {
    return CoordinatedShutdown.get(context.getSystem()).getShutdownReason().isPresent()
        && !services.turns().draining();
  }

  /** The running turn has ended: a stop sharding asked for meanwhile happens now. */
  private void stopIfAsked() {
    if (stopping && idle()) {
      context.getSelf().tell(StopWhenIdle.INSTANCE);
    }
  }

  /** Nothing runs here that stopping would cut short: no turn or its last frame, no fork or import on its way in. */
  private boolean idle() {
    return supervisors.isEmpty() && ending.isEmpty() && !awaitingOpening;
  }

  private ReplyEffect<Event, SessionState> onSupervisorStopped(SessionState state, String turnId) {
    ending.remove(turnId);
    supervisors.remove(turnId);
    // Its supervisor ended the turn's stream as it stopped.
    transcripts.remove(turnId);
    var turn = state.turn(turnId);
    if (turn.isEmpty() || !turn.get().pending()) {
      stopIfAsked();
      return Effect().noReply();
    }
    TurnLogContext.run(TurnLogContext.of(turn.get().traceId(), state.tenantId(), sessionId, turnId),
        () -> context.getLog().error("The supervisor of turn {} stopped before the turn ended", turnId));
    // INTERRUPTED, the code the stopping supervisor gave its subscribers as their terminal event.
    TurnMetrics.recordFailed(services.metrics(), INTERRUPTED);
    return Effect()
        .persist(TurnEnded.of(turnId, TurnEnding.Failed.interrupted("The turn stopped unexpectedly"),
            journaledSoFar(turn.get()), Instant.now()))
        .thenRun(this::startNextQueued)
        .thenNoReply()
        .thenUnstashAll();
  }

  /**
   * After a crash, turns that were running or queued have no one to finish them. The running one,
   * when its checkpoints reserved its frame ids, runs again here if its tenant allows it; otherwise
   * every one is recorded as interrupted, with what its checkpoints had journaled.
   */
  private ReplyEffect<Event, SessionState> onFailInterruptedTurns(SessionState state) {
    var running = state.runningTurn();
    if (running.isPresent() && running.get().progress() != null && !supervisors.containsKey(running.get().turnId())) {
      context.pipeToSelf(services.failover().continuesTurns(state.tenantId()),
          (continues, failure) -> new FailoverDecided(failure == null && continues));
      return Effect().noReply();
    }
    return interruptPending(state);
  }

  private ReplyEffect<Event, SessionState> onFailoverDecided(SessionState state, boolean continues) {
    var running = state.runningTurn();
    if (!continues || running.isEmpty() || running.get().progress() == null) {
      return interruptPending(state);
    }
    TurnRecord turn = running.get();
    Instant now = Instant.now();
    List<RunSpec> runs = turn.runs().stream().map(run -> new RunSpec(UUID.randomUUID().toString(), run.provider(), run.model())).toList();
    TurnAttempt cutShort = TurnCheckpoints.cutShort(turn, this::providerOf);
    List<Event> events = List.of(new TurnRestarted(turn.turnId(), cutShort, runs, now),
        new TurnCheckpointed(turn.turnId(),
            TurnCheckpoints.opening(cutShort.restartFrameId(), services.session().checkpoint()), now));
    TurnLogContext.run(TurnLogContext.of(turn.traceId(), state.tenantId(), sessionId, turn.turnId()),
        () -> context.getLog().info("Its node was lost while turn {} ran; it runs again here", turn.turnId()));
    return Effect()
        .persist(events)
        .thenRun(after -> {
          failingInterruptedTurns = false;
          TurnRecord restarted = after.turn(turn.turnId()).orElseThrow();
          startTurn(after, restarted);
        })
        .thenNoReply()
        .thenUnstashAll();
  }

  private ReplyEffect<Event, SessionState> interruptPending(SessionState state) {
    List<Event> events = new ArrayList<>();
    Instant now = Instant.now();
    for (TurnRecord turn : state.pendingTurns()) {
      if (!supervisors.containsKey(turn.turnId())) {
        events.add(TurnEnded.of(turn.turnId(),
            TurnEnding.Failed.interrupted("The server stopped while this turn was running"), journaledSoFar(turn), now));
      }
    }
    List<String> interrupted = state.pendingTurns().stream().map(TurnRecord::turnId).toList();
    return Effect()
        .persist(events)
        .thenRun(after -> {
          failingInterruptedTurns = false;
          events.forEach(event -> TurnMetrics.recordFailed(services.metrics(), INTERRUPTED));
          notifyWaiting(after, interrupted);
        })
        .thenNoReply()
        .thenUnstashAll();
  }

  /** What a turn cut short leaves: what its checkpoints journaled, and a stream that ends above any id seen. */
  private TurnOutcome journaledSoFar(TurnRecord turn) {
    return turn.progress() == null ? TurnOutcome.nothing()
        : turn.progress().outcome(turn.runs(), this::providerOf, true);
  }

  private String providerOf(String model) {
    return services.models().find(null, model).map(dev.colloquy.engine.model.ModelCatalog.Entry::provider)
        .orElse("unknown");
  }

  /** The supervisor's checkpoint: journaled, then the supervisor may stream up to its new reservation. */
  private ReplyEffect<Event, SessionState> onCheckpoint(SessionState state, TurnSupervisor.Checkpoint checkpoint) {
    var supervisor = supervisors.get(checkpoint.turnId());
    var turn = state.turn(checkpoint.turnId());
    if (supervisor == null || turn.isEmpty() || !turn.get().pending()) {
      return Effect().noReply();
    }
    // The write would hold up every command (a cancel too) until it failed, or wait in a journal queue
    // already as long as the node allows (CheckpointWrites); the turn streams no frame beyond its
    // reservation meanwhile, and its next checkpoint takes these frames again.
    if (!services.journalReachable().getAsBoolean() || !services.checkpointWrites().tryStart()) {
      supervisor.tell(new TurnSupervisor.CheckpointSkipped());
      return Effect().noReply();
    }
    writingCheckpoint = true;
    long persisting = System.nanoTime();
    return Effect()
        .persist(new TurnCheckpointed(checkpoint.turnId(), checkpoint.checkpoint(), Instant.now()))
        .thenRun(after -> {
          checkpointWriteEnded();
          journaled(persisting);
          supervisor.tell(new TurnSupervisor.CheckpointJournaled(checkpoint.checkpoint().reservedThrough()));
        })
        .thenNoReply();
  }

  private void checkpointWriteEnded() {
    if (writingCheckpoint) {
      writingCheckpoint = false;
      services.checkpointWrites().ended();
    }
  }

  private ReplyEffect<Event, SessionState> onPassivateIfIdle() {
    passivationCheck = null;
    if (leaving) {
      return Effect().noReply();
    }
    Duration idle = Duration.ofNanos(System.nanoTime() - lastActiveNanos);
    Duration timeout = services.session().passivationTimeout();
    if (idle.compareTo(timeout) < 0) {
      checkPassivationIn(timeout.minus(idle));
    } else if (supervisors.isEmpty() && shard != null) {
      services.metrics().sessionPassivated();
      shard.tell(new ClusterSharding.Passivate<>(context.getSelf()));
    } else {
      schedulePassivation();
    }
    return Effect().noReply();
  }

  /**
   * Passivation is the entity's own decision, not sharding's idle timer, because a turn's messages
   * reach the entity from its children and sharding would count it idle in the middle of a turn.
   */
  private void schedulePassivation() {
    lastActiveNanos = System.nanoTime();
    if (passivationCheck == null) {
      checkPassivationIn(services.session().passivationTimeout());
    }
  }

  private void checkPassivationIn(Duration delay) {
    passivationCheck = context.scheduleOnce(delay, context.getSelf(), PassivateIfIdle.INSTANCE);
  }

  private void cancelPassivationCheck() {
    if (passivationCheck != null) {
      passivationCheck.cancel();
      passivationCheck = null;
    }
  }

  private void journaled(long persistingNanos) {
    services.metrics().journalWrite(Duration.ofNanos(System.nanoTime() - persistingNanos));
  }

  /**
   * What a session that was never opened answers {@code command}, word for word: a foreign session
   * must not be told apart from a missing one (a missing session has no turns to join or cancel).
   */
  private ReplyEffect<Event, SessionState> answerAsIfMissing(Command command) {
    return switch (command) {
      case Get get -> Effect().reply(get.replyTo(), notFound());
      case ReadMessages read -> Effect().reply(read.replyTo(), notFound());
      case Close close -> Effect().reply(close.replyTo(), notFound());
      case Delete delete -> Effect().reply(delete.replyTo(), notFound());
      case Rename rename -> Effect().reply(rename.replyTo(), notFound());
      case GetForkSource get -> Effect().reply(get.replyTo(), notFound());
      case HandBack handBack -> Effect().reply(handBack.replyTo(), notFound());
      case StartTurn start -> Effect().reply(start.replyTo(), notFound());
      case JoinTurn join -> Effect().reply(join.replyTo(), turnNotFound());
      case CancelTurn cancel -> Effect().reply(cancel.replyTo(), turnNotFound());
      default -> throw new IllegalArgumentException("Not a command a caller scopes to a tenant: " + command);
    };
  }

  private static Rejected notFound() {
    return new Rejected(SESSION_NOT_FOUND, "Session not found", null);
  }

  /** A session that never existed or was deleted has no turns, so this also covers those. */
  private static Rejected turnNotFound() {
    return new Rejected(TURN_NOT_FOUND, "No such turn in this session", null);
  }
}
