package dev.colloquy.engine.turn;

import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.Timeouts;
import dev.colloquy.engine.agent.AgentReplies;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.agent.CannedReply;
import dev.colloquy.engine.agent.EscalationRules;
import dev.colloquy.engine.agent.HistorySummary;
import dev.colloquy.engine.agent.IntentRouter;
import dev.colloquy.engine.agent.NarrativeGapAgent;
import dev.colloquy.engine.agent.LanguageStep;
import dev.colloquy.engine.agent.TenantPolicies;
import dev.colloquy.engine.agent.TranslatedAnswers;
import dev.colloquy.engine.agent.Memory;
import dev.colloquy.engine.agent.MemoryExtraction;
import dev.colloquy.engine.agent.MemoryRecall;
import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.RollingSummary;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnProgress;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.knowledge.RetrievalResult;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.model.TokenCounter;
import dev.colloquy.engine.model.TokenUsage;
import dev.colloquy.engine.model.ToolCall;
import dev.colloquy.engine.model.ToolSpec;
import dev.colloquy.engine.model.offline.OfflineResponder;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tool.EscalateToHumanTool;
import dev.colloquy.engine.tool.ToolContext;
import dev.colloquy.engine.tool.Toolbox;
import dev.colloquy.engine.observe.TurnLogContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Runs one turn: the agent routes the message ({@link IntentRouter}); a domain query gets retrieval
 * and gap detection; the escalation rules may hand the session to a human; then one avatar per
 * requested model runs, in parallel (the agent answers out-of-scope, escalated and forwarded messages
 * itself, see {@link CannedReply}). It owns the turn's lifecycle: it records the turn's frames other
 * than tokens in its {@link Transcript} (the avatars' model threads append the tokens there
 * themselves, so no actor is on a token's path), watches whether anyone reads it, and when every run
 * has ended it reports how the turn ended to its session and appends the terminal frame only after
 * the session has journaled it.
 * While it runs it asks its session to journal checkpoints of what was streamed ({@link Checkpoints}),
 * at a timer's tick or when the transcript signals that enough frames were recorded, and releases the
 * frames each journaled checkpoint reserved to the transcript's readers.
 */
public final class TurnSupervisor extends AbstractBehavior<TurnSupervisor.Command> {

  public sealed interface Command {}

  /** Stop the turn now: every upstream model call is cancelled. */
  public record Cancel(String reason) implements Command {}

  /** The node is shutting down: stop the runs now and end the turn as failed with INTERRUPTED. */
  public record Interrupt() implements Command {}

  /** The session has journaled the outcome: send the terminal frame and stop. */
  public record OutcomePersisted() implements Command {}

  /** The session has journaled a checkpoint: frames up to {@code reservedThrough} may be read. */
  public record CheckpointJournaled(long reservedThrough) implements Command {}

  /** The session could not journal the checkpoint now; a later one takes its frames again. */
  public record CheckpointSkipped() implements Command {}

  /** The checkpoint interval passed, or the transcript recorded the interval's frames. */
  private record CheckpointDue(boolean tick) implements Command {}

  private record RetrievalEnded(RetrievalResult result, Throwable failure) implements Command {}

  private record LanguageKnown(LanguageStep.Detected detected) implements Command {}

  private record SummaryMade(HistorySummary.Summarized summarized) implements Command {}

  private record SummaryWrittenAhead(HistorySummary.Summarized summarized) implements Command {}

  private record IntentKnown(IntentRouter.Routed routed) implements Command {}

  /** The tenant's configuration as the language step reads it (null: it did not answer). */
  private record RoutingConfigKnown(TenantConfig config) implements Command {}

  private record MemoryKnown(MemoryRecall.Recalled recalled) implements Command {}

  private record GapsDetected(NarrativeGapAgent.Detected detected) implements Command {}

  private record MemoriesNoted(MemoryExtraction.Noted noted) implements Command {}

  /** The tenant's max_tokens and instructions (null: none), asked when the turn starts. */
  private record TenantSettingsKnown(int maxTokens, String instructions) implements Command {}

  /** The token counter's tables are loaded: the prompt can be measured. */
  private record CountingReady() implements Command {}

  record RunEnded(int runIndex, RunOutcome outcome) implements Command {}

  /** A run's answer asks for tools: a {@link ToolRound} runs them and the results go back to {@code replyTo}. */
  record ToolsAsked(int runIndex, List<ToolCall> calls, ActorRef<Avatar.Command> replyTo) implements Command {}

  record ToolRoundEnded(int runIndex, List<StreamEvent.ToolResulted> results, ActorRef<Avatar.Command> avatar)
      implements Command {}

  private record AvatarStopped(int runIndex) implements Command {}

  /** The number of the transcript's readers changed (a client came or went). */
  private record ReadersChanged(int readers) implements Command {}

  private record GraceExpired() implements Command {}

  private record CancelDeadlinePassed() implements Command {}

  /** What the supervisor asks its session to journal. */
  public sealed interface Report {}

  /**
   * The turn is over and must be journaled, with the rolling summary its prompt needed (null when it
   * made none).
   */
  public record Ended(String turnId, TurnEnding ending, TurnOutcome outcome, RollingSummary summary)
      implements Report {

    public Ended(String turnId, TurnEnding ending, TurnOutcome outcome) {
      this(turnId, ending, outcome, null);
    }
  }

  /** The frames streamed since the last checkpoint; answered with {@link CheckpointJournaled}. */
  public record Checkpoint(String turnId, TurnProgress.Checkpoint checkpoint) implements Report {}

  /** How long cancelled runs get to report their partial text before the turn ends without it. */
  private static final Duration CANCEL_DEADLINE = Duration.ofSeconds(2);

  /** The turn's plan; its message becomes the one the agent works with once the language step has reported. */
  private TurnPlan plan;
  /** The tokens of the plan's history (which the language step leaves as it is), counted once for the turn. */
  private final HistoryTokens historyTokens;
  private final EngineServices services;
  /** The agent's services with its tenant's configuration asked once, as the turn starts (none for a hand-off). */
  private final AgentServices agent;
  private final ActorRef<Report> session;
  private final Checkpoints checkpoints;
  private final TimerScheduler<Command> timers;
  private final long startedNanos = System.nanoTime();
  private final Transcript transcript;
  private final AgentCalls agentCalls;
  private int readers;
  private final Map<Integer, ActorRef<Avatar.Command>> avatars = new HashMap<>();
  private final RunOutcome[] outcomes;
  private final Toolbox toolbox;
  /** Whose turn the runs' tool calls serve; null until the runs start. */
  private ToolContext toolContext;
  private int toolRounds;
  private RetrievalResult retrieved = RetrievalResult.empty();
  private List<Gap> gaps = List.of();
  /** Who found the gaps of a character chat's turn (model or rule) and the traits it established; null otherwise. */
  private String gapsBy;
  private com.fasterxml.jackson.databind.node.ObjectNode characterTraits;
  private boolean retrievalEnded;
  /** The history the prompt cannot hold, once decided (null: it all fits), and the summary written for it. */
  private HistoryTrim trim;
  private boolean trimDecided;
  private HistorySummary.Summarized summarized;
  /** The summary written beside the answer for the next turn ({@link HistoryTrim#ahead}); null until it reports. */
  private boolean writingAhead;
  private HistorySummary.Summarized writtenAhead;
  /** The message's language and whether it and the answers are translated; null until known, and in a hand-off. */
  private LanguageStep.Detected language;
  /** How the agent routed the message; null until it has, and for a message forwarded to a human. */
  private IntentRouter.Routed routed;
  /** Whether the router was started; it may start before the language step reports (see {@link #onRoutingConfigKnown}). */
  private boolean routing;
  private EscalationReason escalation;
  /** What is known about the session's user; null until the recall has answered. */
  private MemoryRecall.Recalled recalled;
  /** The facts about the user this turn noted after its answer, once their extraction ended. */
  private List<String> noted;
  private boolean extracting;
  private Integer maxTokens;
  private String tenantInstructions;
  private boolean runsStarted;
  /**
   * Whether the token counter has its tables; the first turn on a node has them loaded (a fraction of a
   * second) on the blocking pool, not on the actors' threads, before it measures its prompt.
   */
  private boolean countingReady = TokenCounter.loaded();
  /** The messages the runs were sent, once they started: what an unreported run is billed for. */
  private List<ChatMessage> prompt = List.of();
  private String cancelReason;
  private boolean interrupted;
  private TurnEnding pendingTerminal;
  private boolean terminalSent;

  private TurnSupervisor(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      TurnPlan plan,
      Transcript transcript,
      EngineServices services,
      AgentServices agent,
      CompletionStage<LanguageStep.Detected> detection,
      ActorRef<Report> session) {
    super(context);
    this.timers = timers;
    this.plan = plan;
    this.historyTokens = new HistoryTokens(plan.history());
    this.services = services;
    this.agent = agent;
    this.session = session;
    this.outcomes = new RunOutcome[plan.runs().size()];
    this.toolbox = Toolbox.of(services);
    this.transcript = transcript;
    this.agentCalls = new AgentCalls(services.llm());
    ActorRef<Command> self = context.getSelf();
    this.checkpoints = new Checkpoints(services.session().checkpoint(), transcript,
        () -> self.tell(new CheckpointDue(false)));
    if (transcript.restarted()) {
      context.getLog().info("Turn started again after its node was lost, with models {}",
          plan.runs().stream().map(RunSpec::model).toList());
    } else {
      context.getLog().info("Turn started with models {}", plan.runs().stream().map(RunSpec::model).toList());
      emit(new StreamEvent.Started(plan.runs().stream().map(RunSpec::runId).toList()));
    }
    timers.startTimerAtFixedRate("checkpoint", new CheckpointDue(true), checkpoints.interval());
    if (plan.handoff()) {
      retrievalEnded = true;
    } else {
      String message = plan.message();
      context.pipeToSelf(detection, (detected, failure) -> new LanguageKnown(failure == null ? detected
          : stepFailed("language", failure, LanguageStep.passThrough(message))));
      context.pipeToSelf(agent.policies().config(plan.tenantId()),
          (config, failure) -> new RoutingConfigKnown(failure == null ? config : null));
    }
    if (remembersUser()) {
      context.pipeToSelf(MemoryRecall.recall(plan.tenantId(), plan.userId(), plan.message(), services.agent(),
              logContext(plan)),
          (recalled, failure) -> new MemoryKnown(failure == null ? recalled : stepFailed("memory recall", failure,
              MemoryRecall.Recalled.nothing())));
    } else {
      recalled = MemoryRecall.Recalled.nothing();
    }
    // Asked alongside retrieval, so that the tenant's current settings cost the turn no time.
    context.pipeToSelf(services.answerBudgets().maxTokens(plan.tenantId())
            .thenCombine(services.instructions().of(plan.tenantId()), (budget, instructions) ->
                new TenantSettingsKnown(budget, instructions.orElse(null))),
        (known, failure) -> failure == null ? known : new TenantSettingsKnown(EngineServices.DEFAULT_MAX_TOKENS, null));
    if (!countingReady) {
      context.pipeToSelf(CompletableFuture.runAsync(TokenCounter::cl100k, agent.blocking()),
          (loaded, failure) -> new CountingReady());
    }
    transcript.watchReaders(count -> self.tell(new ReadersChanged(count)));
    readers = transcript.readers();
    startGraceTimer();
    services.turns().started(self, () -> self.tell(new Interrupt()));
  }

  /** {@code transcript} is where the turn's frames go; the session hands out its readers. */
  public static Behavior<Command> create(TurnPlan plan, Transcript transcript, EngineServices services,
      ActorRef<Report> session) {
    AgentServices agent = plan.handoff() ? services.agent()
        : services.agent().withPolicies(TenantPolicies.once(services.agent().policies(), plan.tenantId()));
    // Started here, on the session's thread as it spawns the turn, so that the detection runs while the
    // session finishes accepting the turn and the supervisor is scheduled, instead of after.
    CompletionStage<LanguageStep.Detected> detection = plan.handoff() ? null : detectLanguage(plan, services, agent);
    return Behaviors.withMdc(
        Command.class,
        logContext(plan),
        Behaviors.setup(context -> Behaviors.withTimers(
            timers -> new TurnSupervisor(context, timers, plan, transcript, services, agent, detection, session))));
  }

  /** The language middleware runs first: routing and everything after it read the message it reports. */
  private static CompletionStage<LanguageStep.Detected> detectLanguage(TurnPlan plan, EngineServices services,
      AgentServices agent) {
    RunSpec first = plan.runs().getFirst();
    String model = first.model();
    Optional<ChatModel> translator = model.equals(LlmSettings.OFFLINE_MODEL) ? Optional.empty()
        : services.models().find(first.provider(), model).map(ModelCatalog.Entry::chat);
    return LanguageStep.detect(plan.tenantId(), plan.message(), translator, model, agent, logContext(plan));
  }

  private Behavior<Command> onLanguageKnown(LanguageKnown known) {
    language = known.detected();
    agentCalls.add(language.call());
    plan = plan.withMessage(language.message());
    if (transcript.holding()) {
      releaseOpening();
      return finishIfAllEnded(cancelReason != null);
    }
    if (cancelReason != null) {
      return finishIfAllEnded(true);
    }
    if (!routing) {
      routing = true;
      route(getContext());
    }
    return this;
  }

  /**
   * A tenant that does not translate has its message routed as it was sent, which is what the language
   * step will report: the router then runs beside the language step instead of after it, and the turn
   * goes on from the router's report (see {@link #onIntentKnown}).
   */
  private Behavior<Command> onRoutingConfigKnown(RoutingConfigKnown known) {
    if (!routing && language == null && cancelReason == null && known.config() != null
        && !Boolean.TRUE.equals(known.config().translate())) {
      routing = true;
      route(getContext());
    }
    return this;
  }

  private void route(ActorContext<Command> context) {
    RunSpec first = plan.runs().getFirst();
    String model = first.model();
    Optional<ChatModel> router = services.agent().settings().intentByModel() && !model.equals(LlmSettings.OFFLINE_MODEL)
        ? services.models().find(first.provider(), model).map(ModelCatalog.Entry::chat) : Optional.empty();
    String message = plan.message();
    context.pipeToSelf(IntentRouter.route(plan.tenantId(), message, router, model, agent, logContext(plan)),
        (routed, failure) -> new IntentKnown(failure == null ? routed : stepFailed("routing", failure,
            IntentRouter.unrouted())));
  }

  /** A step that failed although it never fails on purpose: logged, and the turn goes on with {@code fallback}. */
  private <T> T stepFailed(String step, Throwable failure, T fallback) {
    getContext().getLog().error("The turn's {} step failed ({}); the turn goes on without it", step,
        StageFailures.cause(failure).getClass().getName());
    return fallback;
  }

  /** Memory is kept per user: a session of the whole tenant, or one a human has, has none. */
  private boolean remembersUser() {
    return plan.userId() != null && !plan.handoff();
  }

  private void retrieve() {
    getContext().pipeToSelf(Timeouts.within(
            services.knowledge().search(plan.tenantId(), plan.message(), services.session().retrievalLimit())
                .toCompletableFuture(),
            services.session().retrievalTimeout()),
        RetrievalEnded::new);
  }

  private static Map<String, String> logContext(TurnPlan plan) {
    return TurnLogContext.of(plan.traceId(), plan.tenantId(), plan.sessionId(), plan.turnId());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(ReadersChanged.class, this::onReadersChanged)
        .onMessage(Cancel.class, this::onCancel)
        .onMessage(Interrupt.class, this::onInterrupt)
        .onMessage(LanguageKnown.class, this::onLanguageKnown)
        .onMessage(SummaryMade.class, this::onSummaryMade)
        .onMessage(SummaryWrittenAhead.class, this::onSummaryWrittenAhead)
        .onMessage(IntentKnown.class, this::onIntentKnown)
        .onMessage(RoutingConfigKnown.class, this::onRoutingConfigKnown)
        .onMessage(MemoryKnown.class, this::onMemoryKnown)
        .onMessage(MemoriesNoted.class, this::onMemoriesNoted)
        .onMessage(RetrievalEnded.class, this::onRetrieved)
        .onMessage(GapsDetected.class, this::onGapsDetected)
        .onMessage(TenantSettingsKnown.class, this::onTenantSettingsKnown)
        .onMessage(CountingReady.class, this::onCountingReady)
        .onMessage(RunEnded.class, this::onRunEnded)
        .onMessage(ToolsAsked.class, this::onToolsAsked)
        .onMessage(ToolRoundEnded.class, this::onToolRoundEnded)
        .onMessage(AvatarStopped.class, this::onAvatarStopped)
        .onMessage(GraceExpired.class, expired -> onCancel(new Cancel("disconnected")))
        .onMessage(CancelDeadlinePassed.class, passed -> finishIfAllEnded(true))
        .onMessage(OutcomePersisted.class, this::onPersisted)
        .onMessage(CheckpointDue.class, due -> checkpointIfDue(due.tick()))
        .onMessage(CheckpointJournaled.class, journaled -> {
          checkpoints.journaled(journaled.reservedThrough());
          agentCalls.checkpointJournaled();
          return checkpointIfDue(false);
        })
        .onMessage(CheckpointSkipped.class, skipped -> {
          checkpoints.skipped();
          return this;
        })
        .onSignal(PostStop.class, signal -> {
          services.turns().ended(getContext().getSelf());
          return onStopped();
        })
        .build();
  }

  private Behavior<Command> onReadersChanged(ReadersChanged changed) {
    readers = changed.readers();
    if (readers > 0) {
      timers.cancel("grace");
    } else {
      startGraceTimer();
    }
    return this;
  }

  /** With nobody listening, the turn waits for a client to resume, then gives up. */
  private void startGraceTimer() {
    if (readers == 0 && pendingTerminal == null && !timers.isTimerActive("grace")) {
      timers.startSingleTimer("grace", new GraceExpired(), services.session().disconnectGrace());
    }
  }

  private Behavior<Command> onCancel(Cancel cancel) {
    if (cancelReason != null || pendingTerminal != null) {
      return this;
    }
    if (extracting) {
      // The answer is complete: the turn ends with it now, without the facts being noted.
      extracting = false;
      noted = List.of();
      return finishIfAllEnded(false);
    }
    cancelReason = cancel.reason();
    getContext().getLog().info("Cancelling turn: {}", cancel.reason());
    avatars.values().forEach(avatar -> avatar.tell(new Avatar.Cancel()));
    timers.startSingleTimer("cancel-deadline", new CancelDeadlinePassed(), CANCEL_DEADLINE);
    return finishIfAllEnded(false);
  }

  /** Ends the turn the way a cancel does, but reported as the failure a client resuming it will see. */
  private Behavior<Command> onInterrupt(Interrupt interrupt) {
    if (cancelReason != null || pendingTerminal != null) {
      return this;
    }
    interrupted = true;
    return onCancel(new Cancel("interrupted"));
  }

  /**
   * Only a domain query is retrieved for (seed 004 §8.2); the others go on without passages or gaps.
   * The router reports before the language step only for a tenant that does not translate, whose
   * message and answers the language step leaves as they are: the turn then goes on at once, so that
   * its model call starts while the language is still being detected, and the transcript keeps every
   * frame back until the language step reports and the intent frame, which carries the language, goes
   * first ({@link #onLanguageKnown}).
   */
  private Behavior<Command> onIntentKnown(IntentKnown known) {
    routed = known.routed();
    agentCalls.add(routed.call());
    getContext().getLog().info("Message routed as {} by {}", routed.intent().wireName(), routed.source());
    if (cancelReason != null) {
      return finishIfAllEnded(true);
    }
    if (language == null) {
      // The transcript keeps the frames back until the language step reports (onLanguageKnown).
      transcript.hold();
    } else {
      emit(new StreamEvent.IntentRouted(routed.intent(), language.language()));
    }
    if (routed.intent() == Intent.DOMAIN_QUERY) {
      retrieve();
    } else {
      decideEscalation(null);
      retrievalEnded = true;
      startRunsWhenReady();
    }
    return this;
  }

  private void decideEscalation(Double confidence) {
    escalation = EscalationRules.decide(routed.config(), routed.intent(), confidence, plan.priorTurns(), plan.message())
        .orElse(null);
    if (escalation != null) {
      getContext().getLog().info("The turn escalates the session: {}", escalation.wireName());
      emit(new StreamEvent.Escalated(escalation));
    }
  }

  private Behavior<Command> onRetrieved(RetrievalEnded ended) {
    if (cancelReason != null) {
      return finishIfAllEnded(true);
    }
    if (ended.failure() != null) {
      if (services.logContent()) {
        getContext().getLog().warn("Retrieval failed; the turn goes on without passages", ended.failure());
      } else {
        // The failure's message may quote the user's query.
        getContext().getLog().warn("Retrieval failed ({}); the turn goes on without passages",
            ended.failure().getClass().getName());
      }
    } else {
      retrieved = ended.result();
    }
    emit(new StreamEvent.Retrieved(retrieved.passages().stream().map(Citation::of).toList(), retrieved.confidence()));
    gaps = GapDetection.detect(retrieved);
    if (plan.narrativeState() != null) {
      detectNarrativeGaps(getContext());
      return this;
    }
    gapsKnown();
    return this;
  }

  /** A character chat's gaps come from the gap sub-agent (seed 000), the rule's {@code gaps} as its fallback. */
  private void detectNarrativeGaps(ActorContext<Command> context) {
    RunSpec first = plan.runs().getFirst();
    Optional<ChatModel> model = services.agent().settings().gapsByModel()
        && !first.model().equals(LlmSettings.OFFLINE_MODEL)
        ? services.models().find(first.provider(), first.model()).map(ModelCatalog.Entry::chat) : Optional.empty();
    context.spawn(
        Behaviors.withMdc(NarrativeGapAgent.Command.class, logContext(plan),
            NarrativeGapAgent.create(plan.message(), plan.narrativeState(), gaps, model, first.model(),
                services.agent(), context.messageAdapter(NarrativeGapAgent.Detected.class, GapsDetected::new))),
        "gap-detection");
  }

  private Behavior<Command> onGapsDetected(GapsDetected detected) {
    agentCalls.add(detected.detected().call());
    gaps = detected.detected().gaps();
    gapsBy = detected.detected().source();
    characterTraits = detected.detected().characterTraits();
    getContext().getLog().info("Gaps detected by {}: {}", gapsBy, gaps.size());
    if (cancelReason != null) {
      return finishIfAllEnded(true);
    }
    gapsKnown();
    return this;
  }

  private void gapsKnown() {
    gaps.forEach(gap -> emit(new StreamEvent.GapFound(gap)));
    decideEscalation(retrieved.confidence());
    retrievalEnded = true;
    startRunsWhenReady();
  }

  private Behavior<Command> onMemoryKnown(MemoryKnown known) {
    recalled = known.recalled();
    if (cancelReason == null) {
      startRunsWhenReady();
    }
    return this;
  }

  private Behavior<Command> onMemoriesNoted(MemoriesNoted memories) {
    if (!extracting) {
      return this;
    }
    extracting = false;
    noted = memories.noted().facts();
    agentCalls.add(memories.noted().call());
    return finishIfAllEnded(false);
  }

  /**
   * After an answer the model wrote in a user's session, the facts it holds about the user are noted
   * before the turn is reported, so that its journaled outcome says which.
   */
  private boolean startsExtraction() {
    if (noted != null || extracting || !remembersUser() || cancelReason != null || interrupted || routed == null
        || escalation != null || routed.intent() == Intent.OUT_OF_SCOPE
        || services.agent().settings().memory().extraction() == AgentSettings.Extraction.OFF) {
      return false;
    }
    Optional<RunOutcome> answered = java.util.Arrays.stream(outcomes)
        .filter(outcome -> outcome != null && outcome.completed()).findFirst();
    if (answered.isEmpty()) {
      return false;
    }
    String model = answered.get().model();
    Optional<ChatModel> extractor = model.equals(LlmSettings.OFFLINE_MODEL) ? Optional.empty()
        : services.models().find(answered.get().provider(), model).map(ModelCatalog.Entry::chat);
    extracting = true;
    getContext().spawn(Behaviors.withMdc(MemoryExtraction.Command.class, logContext(plan),
        MemoryExtraction.create(plan.tenantId(), plan.userId(), plan.sessionId(), plan.message(),
            answered.get().text(), extractor, model, services.agent(),
            getContext().messageAdapter(MemoryExtraction.Noted.class, MemoriesNoted::new))), "memory-extraction");
    return true;
  }

  private Behavior<Command> onTenantSettingsKnown(TenantSettingsKnown known) {
    maxTokens = known.maxTokens();
    tenantInstructions = known.instructions();
    if (cancelReason == null) {
      startRunsWhenReady();
    }
    return this;
  }

  private Behavior<Command> onCountingReady(CountingReady ready) {
    countingReady = true;
    if (cancelReason == null) {
      startRunsWhenReady();
    }
    return this;
  }

  /** The runs start once the passages, the tenant's settings, what is known of the user and the token counter are. */
  private void startRunsWhenReady() {
    if (retrievalEnded && maxTokens != null && recalled != null && countingReady && !runsStarted && summaryReady()) {
      startRuns(retrieved.passages(), maxTokens);
    }
  }

  /**
   * Whether the prompt's history is settled: it fits, or the summary of what does not has been
   * written. A model answers only a turn the agent does not answer itself; only its prompt is trimmed.
   */
  private boolean summaryReady() {
    if (!trimDecided) {
      trimDecided = true;
      boolean modelAnswers = !plan.handoff() && escalation == null && routed != null
          && routed.intent() != Intent.OUT_OF_SCOPE;
      trim = modelAnswers
          ? HistoryTrim.of(plan, historyTokens, tenantInstructions, recalled, retrieved.passages(), maxTokens,
              services.llm().contextTokens()).orElse(null) : null;
      if (trim != null) {
        summarize(trim, SummaryMade::new, "history-summary");
      } else if (modelAnswers) {
        HistoryTrim.ahead(plan, services.session().historyWindow(), tenantInstructions, recalled,
            retrieved.passages(), maxTokens, services.llm().contextTokens()).ifPresent(ahead -> {
              writingAhead = true;
              summarize(ahead, SummaryWrittenAhead::new, "history-summary-ahead");
            });
      }
    }
    return trim == null || summarized != null;
  }

  private void summarize(HistoryTrim of, java.util.function.Function<HistorySummary.Summarized, Command> reported,
      String name) {
    RunSpec first = plan.runs().getFirst();
    Optional<ChatModel> writer = first.model().equals(LlmSettings.OFFLINE_MODEL) ? Optional.empty()
        : services.models().find(first.provider(), first.model()).map(ModelCatalog.Entry::chat);
    getContext().spawn(Behaviors.withMdc(HistorySummary.Command.class, logContext(plan),
        HistorySummary.create(plan.earlier().summary(), of.toSummarize(), of.summaryTokens(), writer,
            first.model(), services.agent(),
            getContext().messageAdapter(HistorySummary.Summarized.class, reported::apply))), name);
  }

  /** The next turn's summary is written: the turn journals it with its end, which may have waited for it. */
  private Behavior<Command> onSummaryWrittenAhead(SummaryWrittenAhead written) {
    writtenAhead = written.summarized();
    agentCalls.add(writtenAhead.call());
    getContext().getLog().info("The earlier conversation was summarized for the next turn ({} messages, by {})",
        writtenAhead.summary().coveredMessages(), writtenAhead.summary().source());
    return extracting ? this : finishIfAllEnded(false);
  }

  private Behavior<Command> onSummaryMade(SummaryMade made) {
    summarized = made.summarized();
    agentCalls.add(summarized.call());
    getContext().getLog().info("The earlier conversation was summarized ({} messages, by {})",
        summarized.summary().coveredMessages(), summarized.summary().source());
    if (cancelReason == null) {
      startRunsWhenReady();
    }
    return this;
  }

  private void startRuns(List<Passage> passages, int maxTokens) {
    runsStarted = true;
    List<ChatMessage> messages = Prompt.messages(plan, historyTokens, tenantInstructions, recalled, passages, maxTokens,
        services.llm().contextTokens(), summarized != null ? summarized.summary() : plan.earlier().summary(),
        trim == null ? 0 : trim.skip());
    prompt = messages;
    if (routed != null) {
      toolContext = new ToolContext(plan.tenantId(), plan.userId(), plan.sessionId(), plan.turnId(), routed.intent(),
          routed.config());
    }
    for (int i = 0; i < plan.runs().size(); i++) {
      RunSpec run = plan.runs().get(i);
      ChatModel model = answerer(run);
      ChatRequest request = new ChatRequest(run.model(), messages, passages, maxTokens, tools(model), List.of());
      ActorRef<Avatar.Command> avatar = getContext().spawn(
          Behaviors.withMdc(Avatar.Command.class, logContext(plan),
              Avatar.create(i, run, model, request, transcript.run(i), services.llm(),
                  services.agent().settings().tools().maxSteps(), getContext().getSelf())),
          "run-" + i);
      getContext().watchWith(avatar, new AvatarStopped(i));
      avatars.put(i, avatar);
    }
  }

  /** The tools a run's model is offered: none for the agent's own replies and the offline responder. */
  private List<ToolSpec> tools(ChatModel model) {
    // A translated answer is written whole before it is translated: it runs no tool loop.
    if (toolContext == null || !services.agent().settings().tools().enabled() || model instanceof CannedReply
        || model instanceof TranslatedAnswers || model.provider().equals(OfflineResponder.PROVIDER)) {
      return List.of();
    }
    return toolbox.offered(toolContext);
  }

  private Behavior<Command> onToolsAsked(ToolsAsked asked) {
    if (cancelReason != null || pendingTerminal != null || !avatars.containsKey(asked.runIndex())) {
      return this;
    }
    getContext().spawn(Behaviors.withMdc(ToolRound.Command.class, logContext(plan),
            ToolRound.create(asked.runIndex(), plan.runs().get(asked.runIndex()).runId(), asked.calls(), toolbox,
                toolContext, services.agent().settings().tools().timeout(), transcript, logContext(plan),
                getContext().getSelf(), asked.replyTo())),
        "tools-" + asked.runIndex() + "-" + (++toolRounds));
    return this;
  }

  /** A successful {@code escalate_to_human} escalates the session, as the rules would have, and ends the loop. */
  private Behavior<Command> onToolRoundEnded(ToolRoundEnded ended) {
    boolean handedOver = ended.results().stream()
        .anyMatch(result -> result.ok() && result.tool().equals(EscalateToHumanTool.NAME));
    if (handedOver && escalation == null && pendingTerminal == null) {
      escalation = EscalationReason.AGENT_REQUESTED;
      getContext().getLog().info("The model escalates the session: {}", escalation.wireName());
      emit(new StreamEvent.Escalated(escalation));
    }
    ended.avatar().tell(new Avatar.ToolsAnswered(ended.results(), handedOver));
    return this;
  }

  /** Who answers a run, its answers translated back into the user's language when the language step says so. */
  private ChatModel answerer(RunSpec run) {
    ChatModel answerer = chosenAnswerer(run);
    Optional<ChatModel> translator = run.model().equals(LlmSettings.OFFLINE_MODEL) ? Optional.empty()
        : services.models().find(run.provider(), run.model()).map(ModelCatalog.Entry::chat);
    if (language == null || !language.translatesAnswers() || translator.isEmpty()) {
      return answerer;
    }
    return new TranslatedAnswers(answerer, translator.get(), run.model(), language.agentLanguage(),
        language.answerLanguage());
  }

  /** The model of a run, or the agent itself when no model may answer this message. */
  private ChatModel chosenAnswerer(RunSpec run) {
    if (plan.handoff()) {
      return new CannedReply(AgentReplies.forwarded());
    }
    if (escalation != null) {
      return new CannedReply(AgentReplies.escalated(routed.config()));
    }
    if (routed.intent() == Intent.OUT_OF_SCOPE) {
      return new CannedReply(AgentReplies.outOfScope(routed.config()));
    }
    return services.models().find(run.provider(), run.model()).orElseThrow().chat();
  }

  private Behavior<Command> onRunEnded(RunEnded ended) {
    if (outcomes[ended.runIndex()] != null || pendingTerminal != null) {
      return this;
    }
    RunOutcome outcome = ended.outcome();
    outcomes[ended.runIndex()] = outcome;
    avatars.remove(ended.runIndex());
    transcript.closeRun(ended.runIndex());
    switch (outcome.status()) {
      case COMPLETED -> emit(new StreamEvent.RunCompleted(outcome));
      case FAILED -> emit(StreamEvent.RunFailed.of(outcome));
      case CANCELLED -> { }
    }
    return finishIfAllEnded(false);
  }

  /** An avatar that stopped without reporting (it crashed) ends its run as failed. */
  private Behavior<Command> onAvatarStopped(AvatarStopped stopped) {
    if (outcomes[stopped.runIndex()] != null || pendingTerminal != null) {
      return this;
    }
    getContext().getLog().error("Run {} stopped without reporting its outcome", stopped.runIndex());
    RunOutcome partial = unreported(stopped.runIndex());
    return onRunEnded(new RunEnded(stopped.runIndex(), new RunOutcome(partial.runId(), partial.provider(),
        partial.model(), RunOutcome.Status.FAILED, partial.text(), partial.usage(), partial.latencyMs(), "RUN_CRASHED",
        "The run stopped unexpectedly")));
  }

  /** Reports the outcome once every run has ended, or at once when {@code force} (runs left are cancelled). */
  private Behavior<Command> finishIfAllEnded(boolean force) {
    if (pendingTerminal != null) {
      return this;
    }
    boolean allEnded = (runsStarted || cancelReason != null) && avatars.isEmpty()
        && (cancelReason != null || allRunsReported());
    if (!allEnded && !force) {
      return this;
    }
    if (transcript.holding()) {
      if (!force && cancelReason == null) {
        return this; // the language step reports within its timeout, and the turn ends then
      }
      releaseOpening();
    }
    if (!force && startsExtraction()) {
      return this;
    }
    if (!force && cancelReason == null && writingAhead && writtenAhead == null) {
      return this;
    }
    // From here the layout is final: a token still arriving from a run's thread is dropped.
    transcript.closeRuns();
    TurnOutcome outcome = outcome();
    pendingTerminal = ending(outcome);
    timers.cancelAll();
    avatars.values().forEach(avatar -> getContext().stop(avatar));
    avatars.clear();
    getContext().getLog().info("Turn ended ({}) after {} ms", pendingTerminal.status().name().toLowerCase(),
        outcome.latencyMs());
    HistorySummary.Summarized summary = summarized != null ? summarized : writtenAhead;
    session.tell(new Ended(plan.turnId(), pendingTerminal, outcome, summary == null ? null : summary.summary()));
    return this;
  }

  private TurnEnding ending(TurnOutcome outcome) {
    if (interrupted) {
      return TurnEnding.Failed.interrupted("The server shut down while this turn was running");
    }
    if (cancelReason != null) {
      return new TurnEnding.Cancelled(cancelReason);
    }
    if (outcome.runs().stream().anyMatch(RunOutcome::completed)) {
      return TurnEnding.Completed.of(UUID.randomUUID().toString(), outcome);
    }
    RunOutcome first = outcome.runs().getFirst();
    return new TurnEnding.Failed("ALL_RUNS_FAILED",
        "Every model run failed; the first failed with " + first.errorCode() + ": " + first.errorMessage());
  }

  private boolean allRunsReported() {
    for (RunOutcome outcome : outcomes) {
      if (outcome == null) {
        return false;
      }
    }
    return true;
  }

  private TurnOutcome outcome() {
    List<RunOutcome> runs = new ArrayList<>();
    for (int i = 0; i < outcomes.length; i++) {
      runs.add(outcomes[i] != null ? outcomes[i] : unreported(i));
    }
    List<Citation> citations = retrieved.passages().stream().map(Citation::of).toList();
    long latencyMs = (System.nanoTime() - startedNanos) / 1_000_000;
    return new TurnOutcome(runs, citations, retrieved.confidence(), gaps, transcript.marks(), latencyMs, trace(),
        transcript.toolEvents());
  }

  private AgentTrace trace() {
    if (plan.handoff()) {
      return AgentTrace.handedOff();
    }
    List<String> recalledIds = recalled == null ? List.of() : recalled.memories().stream().map(Memory::memoryId).toList();
    return routed == null ? null
        : new AgentTrace(routed.intent(), routed.source(), escalation, false, recalledIds, noted == null ? List.of() : noted,
            agentCalls.list(), language == null ? null : language.language(), gapsBy, characterTraits);
  }

  /**
   * A run that never reported: its text is what its token frames carried, and its usage is counted
   * from the prompt it was sent (none if it never started, or if the agent answered it itself) and
   * that text.
   */
  private RunOutcome unreported(int runIndex) {
    RunSpec run = plan.runs().get(runIndex);
    String text = transcript.tokensOf(runIndex);
    ChatModel answerer = runsStarted ? answerer(run) : null;
    String provider = answerer != null ? answerer.provider()
        : services.models().find(run.provider(), run.model()).map(ModelCatalog.Entry::provider).orElse("unknown");
    Usage usage = Usage.NONE;
    if (answerer != null && !(answerer instanceof CannedReply)) {
      TokenUsage counted = TokenUsage.counted(prompt, text);
      usage = new Usage(counted.promptTokens(), counted.completionTokens(),
          services.llm().priceOf(provider, run.model()).cost(counted.promptTokens(), counted.completionTokens()), true);
    }
    return new RunOutcome(run.runId(), provider, run.model(), RunOutcome.Status.CANCELLED, text,
        usage, (System.nanoTime() - startedNanos) / 1_000_000, null, null);
  }

  private Behavior<Command> onPersisted(OutcomePersisted persisted) {
    // Readers leave once they have the terminal frame; this supervisor no longer cares.
    transcript.watchReaders(ignored -> { });
    transcript.end(pendingTerminal);
    terminalSent = true;
    return Behaviors.stopped();
  }

  /**
   * Stopped before the session journaled the outcome (the session stopped, for instance because the
   * journal write failed): the stream still ends, and with the code the journal will hold once the
   * session recovers and records the turn as interrupted.
   */
  private Behavior<Command> onStopped() {
    transcript.watchReaders(ignored -> { });
    if (!terminalSent) {
      getContext().getLog().warn("Turn stopped before its outcome was journaled; it ends as interrupted");
      // The journal will record this turn without its frames, so its replay ends at the reserved id;
      // the live stream ends there too, and a client resuming after it gets nothing twice.
      transcript.lost(
          TurnEnding.Failed.interrupted("The turn's outcome could not be recorded; it is recorded as interrupted"));
    }
    return this;
  }

  private void emit(StreamEvent event) {
    transcript.record(event);
  }

  /** The intent frame, with the language if it is known by now, then the frames the transcript kept back. */
  private void releaseOpening() {
    transcript.releaseHeld(new StreamEvent.IntentRouted(routed.intent(), language == null ? null : language.language()));
  }

  private Behavior<Command> checkpointIfDue(boolean tick) {
    if (pendingTerminal == null) {
      checkpoints.due(tick, outcomes).ifPresent(checkpoint ->
          session.tell(new Checkpoint(plan.turnId(), checkpoint.withCalls(agentCalls.forCheckpoint()))));
    }
    return this;
  }
}
