package dev.colloquy.engine.turn;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.model.ToolCall;
import dev.colloquy.engine.tool.Tool;
import dev.colloquy.engine.tool.ToolContext;
import dev.colloquy.engine.tool.ToolFailure;
import dev.colloquy.engine.tool.ToolJson;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One tool call of a run, with its timeout: it reports to its round once, with the tool's answer or
 * the error the model is told instead (no such tool, arguments that are not a JSON object, the tool's
 * failure, no answer in time). A tool answering after the timeout is ignored.
 */
final class ToolCallRun {

  sealed interface Command {}

  private record Answered(String content, Throwable failure) implements Command {}

  private record TimedOut() implements Command {}

  private ToolCallRun() {}

  static Behavior<Command> create(int index, ToolCall call, Optional<Tool> tool, ToolContext toolContext,
      Duration timeout, ActorRef<ToolRound.Command> round) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      long startedNanos = System.nanoTime();
      if (tool.isEmpty()) {
        return report(context, round, index, startedNanos, false, ToolJson.error("unknown_tool",
            "There is no tool named '" + call.name() + "' here"));
      }
      CompletionStage<String> answer;
      try {
        JsonNode arguments = ToolJson.arguments(call.arguments());
        answer = tool.get().call(toolContext, arguments);
      } catch (ToolFailure failure) {
        return report(context, round, index, startedNanos, false, ToolJson.error(failure.code(), failure.getMessage()));
      }
      context.pipeToSelf(answer, Answered::new);
      timers.startSingleTimer(new TimedOut(), timeout);
      return Behaviors.receive(Command.class)
          .onMessage(Answered.class, answered -> answered.failure() == null
              ? report(context, round, index, startedNanos, true, answered.content())
              : report(context, round, index, startedNanos, false, failed(context, call, answered.failure())))
          .onMessage(TimedOut.class, timedOut -> {
            context.getLog().warn("Tool {} did not answer within {} ms", call.name(), timeout.toMillis());
            return report(context, round, index, startedNanos, false, ToolJson.error("timed_out",
                "The tool did not answer within " + timeout.toMillis() + " ms"));
          })
          .build();
    }));
  }

  /** What the model is told of a failure: a {@link ToolFailure}'s own message, else nothing of the exception's. */
  private static String failed(ActorContext<Command> context, ToolCall call, Throwable failure) {
    Throwable cause = StageFailures.cause(failure);
    if (cause instanceof ToolFailure toolFailure) {
      return ToolJson.error(toolFailure.code(), toolFailure.getMessage());
    }
    // The class only: an exception's message may quote the user's words or an upstream's answer.
    context.getLog().warn("Tool {} failed with {}", call.name(), cause.getClass().getName());
    return ToolJson.error("failed", "The tool failed");
  }

  private static Behavior<Command> report(ActorContext<Command> context, ActorRef<ToolRound.Command> round, int index,
      long startedNanos, boolean ok, String content) {
    round.tell(new ToolRound.CallEnded(index, ok, content, (System.nanoTime() - startedNanos) / 1_000_000));
    return Behaviors.stopped();
  }
}
