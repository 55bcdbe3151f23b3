package dev.colloquy.engine.turn;

import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.knowledge.RetrievalResult;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.TokenUsage;
import dev.colloquy.engine.observe.TurnLogContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Runs one turn: retrieval, gap detection, then one avatar per requested model, in parallel. It
 * records every frame of the turn's stream in its {@link Transcript}, so a client can resume from
 * any id, and fans them out to the current subscribers. When every run has ended it reports how the
 * turn ended to its session and sends the terminal frame only after the session has journaled it.
 */
public final class TurnSupervisor extends AbstractBehavior<TurnSupervisor.Command> {

  public sealed interface Command {}

  /** Send every frame after {@code afterId}, then every new one, to the subscriber. */
  public record Subscribe(long afterId, ActorRef<TurnFrame> subscriber) implements Command {}

  public record Unsubscribe(ActorRef<TurnFrame> subscriber) implements Command {}

  /** Stop the turn now: every upstream model call is cancelled. */
  public record Cancel(String reason) implements Command {}

  /** The node is shutting down: stop the runs now and end the turn as failed with INTERRUPTED. */
  public record Interrupt() implements Command {}

  /** The session has journaled the outcome: send the terminal frame and stop. */
  public record OutcomePersisted() implements Command {}

  record RetrievalEnded(RetrievalResult result, Throwable failure) implements Command {}

  /** The tenant's max_tokens and instructions (null: none), asked when the turn starts. */
  private record TenantSettingsKnown(int maxTokens, String instructions) implements Command {}

  record RunToken(int runIndex, String text) implements Command {}

  record RunEnded(int runIndex, RunOutcome outcome) implements Command {}

  private record AvatarStopped(int runIndex) implements Command {}

  private record GraceExpired() implements Command {}

  private record CancelDeadlinePassed() implements Command {}

  /** What the supervisor reports to its session when the turn is over and must be journaled. */
  public record Ended(String turnId, TurnEnding ending, TurnOutcome outcome) {}

  /** How long cancelled runs get to report their partial text before the turn ends without it. */
  private static final Duration CANCEL_DEADLINE = Duration.ofSeconds(2);

  private final TurnPlan plan;
  private final EngineServices services;
  private final ActorRef<Ended> session;
  private final TimerScheduler<Command> timers;
  private final long startedNanos = System.nanoTime();
  private final Transcript transcript;
  private final Set<ActorRef<TurnFrame>> subscribers = new HashSet<>();
  private final Map<Integer, ActorRef<Avatar.Command>> avatars = new HashMap<>();
  private final RunOutcome[] outcomes;
  private RetrievalResult retrieved = RetrievalResult.empty();
  private List<Gap> gaps = List.of();
  private boolean retrievalEnded;
  private Integer maxTokens;
  private String tenantInstructions;
  private boolean runsStarted;
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
      EngineServices services,
      ActorRef<Ended> session) {
    super(context);
    this.timers = timers;
    this.plan = plan;
    this.services = services;
    this.session = session;
    this.outcomes = new RunOutcome[plan.runs().size()];
    this.transcript = new Transcript(plan.sessionId(), plan.turnId(), plan.traceId());
    context.getLog().info("Turn started with models {}", plan.runs().stream().map(RunSpec::model).toList());
    emit(new StreamEvent.Started(plan.runs().stream().map(RunSpec::runId).toList()), FrameMark.of(FrameMark.Kind.STARTED));
    context.spawn(
        Behaviors.withMdc(Retrieval.Command.class, logContext(plan),
            Retrieval.create(services.knowledge(), plan.tenantId(), plan.message(),
                services.session().retrievalLimit(), services.session().retrievalTimeout(), context.getSelf())),
        "retrieval");
    // Asked alongside retrieval, so that the tenant's current settings cost the turn no time.
    context.pipeToSelf(services.answerBudgets().maxTokens(plan.tenantId())
            .thenCombine(services.instructions().of(plan.tenantId()), (budget, instructions) ->
                new TenantSettingsKnown(budget, instructions.orElse(null))),
        (known, failure) -> failure == null ? known : new TenantSettingsKnown(EngineServices.DEFAULT_MAX_TOKENS, null));
    startGraceTimer();
    ActorRef<Command> self = context.getSelf();
    services.turns().started(self, () -> self.tell(new Interrupt()));
  }

  public static Behavior<Command> create(TurnPlan plan, EngineServices services, ActorRef<Ended> session) {
    return Behaviors.withMdc(
        Command.class,
        logContext(plan),
        Behaviors.setup(
            context -> Behaviors.withTimers(timers -> new TurnSupervisor(context, timers, plan, services, session))));
  }

  private static Map<String, String> logContext(TurnPlan plan) {
    return TurnLogContext.of(plan.traceId(), plan.tenantId(), plan.sessionId(), plan.turnId());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Subscribe.class, this::onSubscribe)
        .onMessage(Unsubscribe.class, this::onUnsubscribe)
        .onMessage(Cancel.class, this::onCancel)
        .onMessage(Interrupt.class, this::onInterrupt)
        .onMessage(RetrievalEnded.class, this::onRetrieved)
        .onMessage(TenantSettingsKnown.class, this::onTenantSettingsKnown)
        .onMessage(RunToken.class, this::onToken)
        .onMessage(RunEnded.class, this::onRunEnded)
        .onMessage(AvatarStopped.class, this::onAvatarStopped)
        .onMessage(GraceExpired.class, expired -> onCancel(new Cancel("disconnected")))
        .onMessage(CancelDeadlinePassed.class, passed -> finishIfAllEnded(true))
        .onMessage(OutcomePersisted.class, this::onPersisted)
        .onSignal(PostStop.class, signal -> {
          services.turns().ended(getContext().getSelf());
          return onStopped();
        })
        .build();
  }

  private Behavior<Command> onSubscribe(Subscribe subscribe) {
    transcript.after(subscribe.afterId()).forEach(subscribe.subscriber()::tell);
    subscribers.add(subscribe.subscriber());
    timers.cancel("grace");
    return this;
  }

  private Behavior<Command> onUnsubscribe(Unsubscribe unsubscribe) {
    subscribers.remove(unsubscribe.subscriber());
    startGraceTimer();
    return this;
  }

  /** With nobody listening, the turn waits for a client to resume, then gives up. */
  private void startGraceTimer() {
    if (subscribers.isEmpty() && pendingTerminal == null) {
      timers.startSingleTimer("grace", new GraceExpired(), services.session().disconnectGrace());
    }
  }

  private Behavior<Command> onCancel(Cancel cancel) {
    if (cancelReason != null || pendingTerminal != null) {
      return this;
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
    emit(new StreamEvent.Retrieved(retrieved.passages().stream().map(Citation::of).toList(), retrieved.confidence()),
        FrameMark.of(FrameMark.Kind.RETRIEVAL));
    gaps = GapDetection.detect(retrieved);
    gaps.forEach(gap -> emit(new StreamEvent.GapFound(gap), FrameMark.of(FrameMark.Kind.GAP)));
    retrievalEnded = true;
    startRunsWhenReady();
    return this;
  }

  private Behavior<Command> onTenantSettingsKnown(TenantSettingsKnown known) {
    maxTokens = known.maxTokens();
    tenantInstructions = known.instructions();
    if (cancelReason == null) {
      startRunsWhenReady();
    }
    return this;
  }

  /** The runs start once both the passages and the tenant's settings are known. */
  private void startRunsWhenReady() {
    if (retrievalEnded && maxTokens != null && !runsStarted) {
      startRuns(retrieved.passages(), maxTokens);
    }
  }

  private void startRuns(List<Passage> passages, int maxTokens) {
    runsStarted = true;
    var messages = Prompt.messages(plan, tenantInstructions, passages, maxTokens, services.llm().contextTokens());
    prompt = messages;
    for (int i = 0; i < plan.runs().size(); i++) {
      RunSpec run = plan.runs().get(i);
      ChatModel model = services.models().find(run.model()).orElseThrow();
      ChatRequest request = new ChatRequest(run.model(), messages, passages, maxTokens);
      ActorRef<Avatar.Command> avatar = getContext().spawn(
          Behaviors.withMdc(Avatar.Command.class, logContext(plan),
              Avatar.create(i, run, model, request, services.llm(), getContext().getSelf())),
          "run-" + i);
      getContext().watchWith(avatar, new AvatarStopped(i));
      avatars.put(i, avatar);
    }
  }

  private Behavior<Command> onToken(RunToken token) {
    if (outcomes[token.runIndex()] == null && pendingTerminal == null) {
      emit(new StreamEvent.Token(plan.runs().get(token.runIndex()).runId(), token.text()),
          new FrameMark(FrameMark.Kind.TOKEN, token.runIndex(), token.text().length()));
    }
    return this;
  }

  private Behavior<Command> onRunEnded(RunEnded ended) {
    if (outcomes[ended.runIndex()] != null || pendingTerminal != null) {
      return this;
    }
    RunOutcome outcome = ended.outcome();
    outcomes[ended.runIndex()] = outcome;
    avatars.remove(ended.runIndex());
    switch (outcome.status()) {
      case COMPLETED -> emit(new StreamEvent.RunCompleted(outcome), new FrameMark(FrameMark.Kind.RUN_COMPLETED, ended.runIndex(), 0));
      case FAILED -> emit(new StreamEvent.RunFailed(outcome.runId(), outcome.errorCode(), outcome.errorMessage()),
          new FrameMark(FrameMark.Kind.RUN_FAILED, ended.runIndex(), 0));
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
    RunOutcome partial = unreported(plan.runs().get(stopped.runIndex()));
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
    TurnOutcome outcome = outcome();
    pendingTerminal = ending(outcome);
    timers.cancelAll();
    avatars.values().forEach(avatar -> getContext().stop(avatar));
    avatars.clear();
    getContext().getLog().info("Turn ended ({}) after {} ms", pendingTerminal.status().name().toLowerCase(),
        outcome.latencyMs());
    session.tell(new Ended(plan.turnId(), pendingTerminal, outcome));
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
      RunSpec run = plan.runs().get(i);
      runs.add(outcomes[i] != null ? outcomes[i] : unreported(run));
    }
    List<Citation> citations = retrieved.passages().stream().map(Citation::of).toList();
    long latencyMs = (System.nanoTime() - startedNanos) / 1_000_000;
    return new TurnOutcome(runs, citations, retrieved.confidence(), gaps, transcript.marks(), latencyMs);
  }

  /**
   * A run that never reported: its text is what its token frames carried, and its usage is counted
   * from the prompt it was sent (none if it never started) and that text.
   */
  private RunOutcome unreported(RunSpec run) {
    String text = transcript.tokensOf(run.runId());
    String provider = services.models().find(run.model()).map(ChatModel::provider).orElse("unknown");
    Usage usage = Usage.NONE;
    if (runsStarted) {
      TokenUsage counted = TokenUsage.counted(prompt, text);
      usage = new Usage(counted.promptTokens(), counted.completionTokens(),
          services.llm().priceOf(run.model()).cost(counted.promptTokens(), counted.completionTokens()), true);
    }
    return new RunOutcome(run.runId(), provider, run.model(), RunOutcome.Status.CANCELLED, text,
        usage, (System.nanoTime() - startedNanos) / 1_000_000, null, null);
  }

  private Behavior<Command> onPersisted(OutcomePersisted persisted) {
    TurnFrame terminal = transcript.end(pendingTerminal);
    subscribers.forEach(subscriber -> subscriber.tell(terminal));
    terminalSent = true;
    return Behaviors.stopped();
  }

  /**
   * Stopped before the session journaled the outcome (the session stopped, for instance because the
   * journal write failed): the stream still ends, and with the code the journal will hold once the
   * session recovers and records the turn as interrupted.
   */
  private Behavior<Command> onStopped() {
    if (!terminalSent) {
      getContext().getLog().warn("Turn stopped before its outcome was journaled; it ends as interrupted");
      // The journal will record this turn without its frames, so its replay ends at the reserved id;
      // the live stream ends there too, and a client resuming after it gets nothing twice.
      TurnFrame terminal = transcript.lost(
          TurnEnding.Failed.interrupted("The turn's outcome could not be recorded; it is recorded as interrupted"));
      subscribers.forEach(subscriber -> subscriber.tell(terminal));
    }
    return this;
  }

  private void emit(StreamEvent event, FrameMark mark) {
    TurnFrame frame = transcript.record(event, mark);
    subscribers.forEach(subscriber -> subscriber.tell(frame));
  }
}
