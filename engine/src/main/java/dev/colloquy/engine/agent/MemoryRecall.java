package dev.colloquy.engine.agent;

import dev.colloquy.engine.StageFailures;
import dev.colloquy.engine.Timeouts;
import dev.colloquy.engine.observe.TurnLogContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A step of a turn in a user's session (seed 002): the user's memories most similar to the message,
 * and the context the tenant set for the user, read in parallel with routing. A failure or a slow
 * store costs the turn its memory, never the turn. A function of the turn rather than an actor of its
 * own: the turn's supervisor gets its result as one message.
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

  private static final Logger log = LoggerFactory.getLogger(MemoryRecall.class);

  private MemoryRecall() {}

  /**
   * What is known about the user; never fails (a store that fails or is slow gives nothing).
   * {@code logContext} is the turn's, for the line written on the thread that finishes the step.
   */
  public static CompletionStage<Recalled> recall(String tenantId, String userId, String message, AgentServices agent,
      Map<String, String> logContext) {
    int limit = agent.settings().memory().recall();
    return Timeouts.within(CompletableFuture.supplyAsync(() -> new Recalled(
                limit == 0 ? List.of() : agent.memories().recall(tenantId, userId, message, limit),
                agent.memories().context(tenantId, userId)), agent.blocking()), agent.settings().stepTimeout())
        .exceptionally(failure -> {
          TurnLogContext.run(logContext, () -> log.warn("The user's memory could not be read ({}); the turn goes on without it",
              StageFailures.cause(failure).getClass().getName()));
          return Recalled.nothing();
        });
  }
}
