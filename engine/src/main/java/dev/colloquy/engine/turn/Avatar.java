package dev.colloquy.engine.turn;

import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.agent.CannedReply;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenUsage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One model run of a turn. It owns the upstream call: whatever way it stops (done, failed, timed
 * out, cancelled, or its turn gone), the call is cancelled with it, which closes the connection.
 * The run's tokens do not pass through it: the model's thread appends them to the turn's
 * transcript ({@link RunTokens}), and only the first one is told, to stop the first-token timer.
 */
final class Avatar extends AbstractBehavior<Avatar.Command> {

  sealed interface Command {}

  /** Stop now; report the run as cancelled with the text produced so far. */
  record Cancel() implements Command {}

  private record FirstToken() implements Command {}

  private record StreamDone(TokenUsage usage) implements Command {}

  private record StreamFailed(ModelException error) implements Command {}

  private record TimedOut(String what) implements Command {}

  private final int runIndex;
  private final RunSpec run;
  private final ChatModel model;
  private final LlmSettings llm;
  private final ActorRef<TurnSupervisor.Command> supervisor;
  private final TimerScheduler<Command> timers;
  private final long startedNanos = System.nanoTime();
  private final RunTokens tokens;
  private final ChatRequest request;
  private final ChatStream stream;

  private Avatar(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      int runIndex,
      RunSpec run,
      ChatModel model,
      ChatRequest request,
      RunTokens tokens,
      LlmSettings llm,
      ActorRef<TurnSupervisor.Command> supervisor) {
    super(context);
    this.timers = timers;
    this.tokens = tokens;
    this.runIndex = runIndex;
    this.run = run;
    this.model = model;
    this.llm = llm;
    this.supervisor = supervisor;
    this.request = request;
    timers.startSingleTimer("first-token", new TimedOut("first token"), llm.firstTokenTimeout(model.provider()));
    timers.startSingleTimer("total", new TimedOut("run"), llm.totalTimeout(model.provider()));
    this.stream = model.stream(request, listener(context.getSelf(), tokens));
  }

  static Behavior<Command> create(
      int runIndex,
      RunSpec run,
      ChatModel model,
      ChatRequest request,
      RunTokens tokens,
      LlmSettings llm,
      ActorRef<TurnSupervisor.Command> supervisor) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> new Avatar(context, timers, runIndex, run, model, request, tokens, llm, supervisor)));
  }

  private static ChatListener listener(ActorRef<Command> self, RunTokens tokens) {
    AtomicBoolean first = new AtomicBoolean(true);
    return new ChatListener() {
      @Override
      public void onToken(String token) {
        if (tokens.append(token) && first.getAndSet(false)) {
          self.tell(new FirstToken());
        }
      }

      @Override
      public void onComplete(TokenUsage usage) {
        self.tell(new StreamDone(usage));
      }

      @Override
      public void onError(ModelException error) {
        self.tell(new StreamFailed(error));
      }
    };
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(FirstToken.class, this::onFirstToken)
        .onMessage(StreamDone.class, done -> end(RunOutcome.Status.COMPLETED, done.usage(), null, null))
        .onMessage(StreamFailed.class, failed -> end(RunOutcome.Status.FAILED, null,
            failed.error().code(), failed.error().getMessage()))
        .onMessage(TimedOut.class, timeout -> end(RunOutcome.Status.FAILED, null,
            ModelException.TIMEOUT, "The model did not finish its " + timeout.what() + " in time"))
        .onMessage(Cancel.class, cancel -> end(RunOutcome.Status.CANCELLED, null, null, null))
        .onSignal(PostStop.class, signal -> {
          stream.cancel();
          return this;
        })
        .build();
  }

  private Behavior<Command> onFirstToken(FirstToken first) {
    timers.cancel("first-token");
    return this;
  }

  /**
   * What a run that ended without the provider's count consumed, counted here: the prompt, which
   * was sent (unless the endpoint refused the call before answering anything), and the text it
   * streamed, which was generated and is paid for upstream. The agent's own replies cost nothing.
   */
  private TokenUsage unreported(String errorCode, String text) {
    boolean refused = text.isEmpty() && (ModelException.REJECTED.equals(errorCode)
        || ModelException.UNAVAILABLE.equals(errorCode) || ModelException.RATE_LIMITED.equals(errorCode));
    return refused || model instanceof CannedReply ? TokenUsage.NONE : TokenUsage.counted(request.messages(), text);
  }

  /** {@code reported} is the provider's count, null when the run ended without one. */
  private Behavior<Command> end(RunOutcome.Status status, TokenUsage reported, String code, String message) {
    stream.cancel();
    // The run's text is what its token frames carried; none is taken after this.
    String text = tokens.close();
    TokenUsage usage = reported != null ? reported : unreported(code, text);
    double cost = llm.priceOf(model.provider(), run.model()).cost(usage.promptTokens(), usage.completionTokens());
    long latencyMs = (System.nanoTime() - startedNanos) / 1_000_000;
    getContext().getLog().info("Run {} on model {} ended {}{} after {} ms ({} tokens in, {} out)", run.runId(),
        run.model(), status.name().toLowerCase(), code == null ? "" : " with " + code, latencyMs,
        usage.promptTokens(), usage.completionTokens());
    supervisor.tell(
        new TurnSupervisor.RunEnded(
            runIndex,
            new RunOutcome(run.runId(), model.provider(), run.model(), status, text,
                new Usage(usage.promptTokens(), usage.completionTokens(), cost, usage.estimated()), latencyMs, code,
                message)));
    return Behaviors.stopped();
  }
}
