package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.model.ToolCall;
import dev.colloquy.engine.tool.ToolContext;
import dev.colloquy.engine.tool.Toolbox;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One round of a run's tool calls, a child of the turn's supervisor: it records a {@code tool.called}
 * frame per call, runs each call in a child of its own ({@link ToolCallRun}, all at once), records
 * the {@code tool.result} frames in the order of the calls as soon as each is known, and reports the
 * results to the supervisor once every call has one. Results keep the calls' order so that a
 * replay rebuilds the same frames from the journaled outcome.
 */
final class ToolRound {

  sealed interface Command {}

  record CallEnded(int index, boolean ok, String content, long latencyMs) implements Command {}

  private ToolRound() {}

  static Behavior<Command> create(int runIndex, String runId, List<ToolCall> calls, Toolbox toolbox,
      ToolContext toolContext, Duration timeout, Transcript transcript, Map<String, String> logContext,
      ActorRef<TurnSupervisor.Command> supervisor, ActorRef<Avatar.Command> avatar) {
    return Behaviors.setup(context -> {
      context.getLog().info("Run {} calls tools {}", runId, calls.stream().map(ToolCall::name).toList());
      for (int i = 0; i < calls.size(); i++) {
        ToolCall call = calls.get(i);
        transcript.toolStep(runIndex, new StreamEvent.ToolCalled(runId, call.id(), call.name(), call.arguments()));
        context.spawn(Behaviors.withMdc(ToolCallRun.Command.class, logContext,
            ToolCallRun.create(i, call, toolbox.find(call.name(), toolContext), toolContext, timeout, context.getSelf())),
            "call-" + i);
      }
      StreamEvent.ToolResulted[] results = new StreamEvent.ToolResulted[calls.size()];
      int[] recorded = {0};
      return Behaviors.receive(Command.class)
          .onMessage(CallEnded.class, ended -> {
            ToolCall call = calls.get(ended.index());
            results[ended.index()] = new StreamEvent.ToolResulted(runId, call.id(), call.name(), ended.ok(),
                ended.content(), ended.latencyMs());
            while (recorded[0] < results.length && results[recorded[0]] != null) {
              transcript.toolStep(runIndex, results[recorded[0]++]);
            }
            if (recorded[0] < results.length) {
              return Behaviors.same();
            }
            supervisor.tell(new TurnSupervisor.ToolRoundEnded(runIndex, Arrays.asList(results), avatar));
            return Behaviors.stopped();
          })
          .build();
    });
  }
}
