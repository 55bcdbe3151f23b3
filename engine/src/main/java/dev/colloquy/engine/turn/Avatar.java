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
import dev.colloquy.engine.model.ToolCall;
import dev.colloquy.engine.model.ToolExchange;
import dev.colloquy.engine.domain.StreamEvent;
import java.util.List;
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
 *
 * <p>When the request offers tools and an answer asks for some, the run goes on: its supervisor runs
 * them ({@link ToolRound}) and hands back the results, and the model is called again with the
 * round's calls and results, up to {@code maxSteps} rounds; then once more without tools, so that it
 * answers with what it has. The first-token timer restarts with each call; the total timer bounds
 * the whole run, tools included. The run's usage is the sum of its calls'.
 */
final class Avatar extends AbstractBehavior<Avatar.Command> {

  sealed interface Command {}

  /** Stop now; report the run as cancelled with the text produced so far. */
  record Cancel() implements Command {}

  private record FirstToken() implements Command {}

  private record StreamDone(TokenUsage usage) implements Command {}

  private record StreamFailed(ModelException error) implements Command {}

  private record TimedOut(String what) implements Command {}

  private record ToolsAsked(List<ToolCall> calls) implements Command {}

  /**
   * The results of the round of calls the run asked for, in the calls' order; {@code last}: the
   * loop ends here (the session was handed to a human), the model answers without tools.
   */
  record ToolsAnswered(List<StreamEvent.ToolResulted> results, boolean last) implements Command {}

  private final int runIndex;
  private final RunSpec run;
  private final ChatModel model;
  private final LlmSettings llm;
  private final ActorRef<TurnSupervisor.Command> supervisor;
  private final TimerScheduler<Command> timers;
  private final long startedNanos = System.nanoTime();
  private final RunTokens tokens;
  private final int maxSteps;
  private ChatRequest request;
  private ChatStream stream;
  private List<ToolCall> asked = List.of();
  private int rounds;
  /** Where this call's text starts in the run's text: what came before belongs to earlier rounds. */
  private int roundStart;
  private TokenUsage usage = TokenUsage.NONE;

  private Avatar(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      int runIndex,
      RunSpec run,
      ChatModel model,
      ChatRequest request,
      RunTokens tokens,
      LlmSettings llm,
      int maxSteps,
      ActorRef<TurnSupervisor.Command> supervisor) {
    super(context);
    this.timers = timers;
    this.tokens = tokens;
    this.maxSteps = maxSteps;
    this.request = request;
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
      int maxSteps,
      ActorRef<TurnSupervisor.Command> supervisor) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> new Avatar(context, timers, runIndex, run, model, request, tokens, llm, maxSteps, supervisor)));
  }

  private static ChatListener listener(ActorRef<Command> self, RunTokens tokens) {
    AtomicBoolean first = new AtomicBoolean(true);
    return new ChatListener() {
      @Override
      public void onToken(String token) {
        switch (tokens.append(token)) {
          case TAKEN -> {
            if (first.getAndSet(false)) {
              self.tell(new FirstToken());
            }
          }
          case OVER_BUDGET -> self.tell(new StreamFailed(new ModelException(ModelException.ANSWER_TOO_LARGE,
              "The answers of this turn's runs passed " + Transcript.ANSWER_BUDGET_BYTES
                  + " bytes together; this run's was cut off there")));
          case DROPPED -> { }
        }
      }

      @Override
      public void onToolCalls(List<ToolCall> calls) {
        self.tell(new ToolsAsked(calls));
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
        .onMessage(ToolsAsked.class, this::onToolsAsked)
        .onMessage(StreamDone.class, this::onStreamDone)
        .onMessage(ToolsAnswered.class, this::onToolsAnswered)
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

  private Behavior<Command> onToolsAsked(ToolsAsked toolsAsked) {
    asked = toolsAsked.calls();
    return this;
  }

  /**
   * The call ended: with the run's answer, or, when the call offered tools and the answer asks for
   * some, with a round of tool calls for the supervisor to run. Calls asked for although none was
   * offered are ignored: the answer is the text.
   */
  private Behavior<Command> onStreamDone(StreamDone done) {
    // A model client that reports no usage for the call leaves it to be counted here.
    usage = usage.plus(done.usage() != null ? done.usage()
        : unreported(null, tokens.text().substring(Math.min(roundStart, tokens.text().length()))));
    if (asked.isEmpty() || request.tools().isEmpty()) {
      return end(RunOutcome.Status.COMPLETED, usage, null, null);
    }
    timers.cancel("first-token");
    rounds++;
    supervisor.tell(new TurnSupervisor.ToolsAsked(runIndex, asked, getContext().getSelf()));
    return this;
  }

  private Behavior<Command> onToolsAnswered(ToolsAnswered answered) {
    String text = tokens.text();
    ToolExchange exchange = new ToolExchange(text.substring(roundStart), asked,
        answered.results().stream().map(result -> new ToolExchange.Result(result.callId(), result.content())).toList());
    roundStart = text.length();
    asked = List.of();
    if (rounds >= maxSteps) {
      getContext().getLog().info("Run {} reached its {} rounds of tool calls; the model answers without tools",
          run.runId(), maxSteps);
    }
    request = request.after(exchange, rounds >= maxSteps || answered.last() ? List.of() : request.tools());
    timers.startSingleTimer("first-token", new TimedOut("first token"), llm.firstTokenTimeout());
    stream = model.stream(request, listener(getContext().getSelf(), tokens));
    return this;
  }

  /**
   * {@code reported} is the run's usage when it completed (every round's, as the provider or the model
   * client counted it); null when it ended otherwise, and then what its rounds of tools used is added
   * to what the call it ended in consumed ({@link #unreported}).
   */
  private Behavior<Command> end(RunOutcome.Status status, TokenUsage reported, String code, String message) {
    stream.cancel();
    // The run's text is what its token frames carried; none is taken after this.
    String text = tokens.close();
    // A run that fails or is cancelled after rounds of tools still used their calls' tokens.
    TokenUsage usage = reported != null ? reported
        : this.usage.plus(unreported(code, text.substring(Math.min(roundStart, text.length()))));
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
