package dev.colloquy.engine.turn;

import dev.colloquy.engine.knowledge.KnowledgeBase;
import dev.colloquy.engine.knowledge.RetrievalResult;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** Searches the tenant's knowledge for the turn's message and reports to its supervisor, once. */
final class Retrieval {

  sealed interface Command {}

  private record Found(RetrievalResult result, Throwable failure) implements Command {}

  private Retrieval() {}

  static Behavior<Command> create(
      KnowledgeBase knowledge,
      String tenantId,
      String query,
      int limit,
      Duration timeout,
      ActorRef<TurnSupervisor.Command> supervisor) {
    return Behaviors.setup(
        context -> {
          context.pipeToSelf(
              knowledge
                  .search(tenantId, query, limit)
                  .toCompletableFuture()
                  .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS),
              Found::new);
          return Behaviors.receive(Command.class)
              .onMessage(
                  Found.class,
                  found -> {
                    supervisor.tell(new TurnSupervisor.RetrievalEnded(found.result(), found.failure()));
                    return Behaviors.stopped();
                  })
              .build();
        });
  }
}
