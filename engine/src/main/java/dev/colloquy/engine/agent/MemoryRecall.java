package dev.colloquy.engine.agent;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A step of a turn in a user's session (seed 002): the user's memories most similar to the message,
 * and the context the tenant set for the user, read in parallel with routing. A failure or a slow
 * store costs the turn its memory, never the turn.
 */
public final class MemoryRecall {

  /** What the prompt learns about the user; {@code memories} empty and {@code context} empty when nothing is known. */
  public record Recalled(List<Memory> memories, Optional<UserContext> context) {
    public Recalled {
      memories = List.copyOf(memories);
    }

    public static Recalled nothing() {
      return new Recalled(List.of(), Optional.empty());
    }
  }

  public sealed interface Command {}

  private record Found(Recalled recalled, Throwable failure) implements Command {}

  private MemoryRecall() {}

  public static Behavior<Command> create(String tenantId, String userId, String message, AgentServices agent,
      ActorRef<Recalled> replyTo) {
    return Behaviors.setup(context -> {
      int limit = agent.settings().memory().recall();
      context.pipeToSelf(CompletableFuture.supplyAsync(() -> new Recalled(
                  limit == 0 ? List.of() : agent.memories().recall(tenantId, userId, message, limit),
                  agent.memories().context(tenantId, userId)), agent.blocking())
              .orTimeout(agent.settings().stepTimeout().toMillis(), TimeUnit.MILLISECONDS),
          Found::new);
      return Behaviors.receive(Command.class)
          .onMessage(Found.class, found -> {
            if (found.failure() != null) {
              context.getLog().warn("The user's memory could not be read ({}); the turn goes on without it",
                  found.failure().getClass().getName());
            }
            replyTo.tell(found.failure() == null ? found.recalled() : Recalled.nothing());
            return Behaviors.stopped();
          })
          .build();
    });
  }
}
