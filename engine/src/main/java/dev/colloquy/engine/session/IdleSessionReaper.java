package dev.colloquy.engine.session;

import dev.colloquy.config.SessionSettings;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;

/**
 * Closes sessions that have been idle for the idle timeout. It works from the read side's list of
 * open sessions and their last activity rather than from timers inside the entities, so a session
 * passivated before its deadline, or a whole cluster stopped across it, is still closed. One runs
 * per cluster; each session it asks decides from its own state whether it really is idle.
 */
public final class IdleSessionReaper {

  public sealed interface Command {}

  private record Check() implements Command {}

  private record Found(List<String> sessionIds) implements Command {}

  private record LookupFailed(Throwable error) implements Command {}

  /** Most sessions asked per check; the rest wait for the next one. */
  static final int BATCH = 500;

  private IdleSessionReaper() {}

  public static void init(ActorSystem<?> system, IdleSessions idleSessions, SessionSettings settings) {
    ClusterSingleton.get(system).init(SingletonActor.of(
        Behaviors.supervise(create(idleSessions, settings)).onFailure(SupervisorStrategy.restart()),
        "idle-session-reaper"));
  }

  static Behavior<Command> create(IdleSessions idleSessions, SessionSettings settings) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(new Check(), settings.idleCheckInterval());
      ClusterSharding sharding = ClusterSharding.get(context.getSystem());
      return Behaviors.receive(Command.class)
          .onMessage(Check.class, check -> lookup(context, idleSessions, settings))
          .onMessage(Found.class, found -> {
            found.sessionIds().forEach(sessionId -> sharding.entityRefFor(ChatSession.ENTITY_KEY, sessionId)
                .tell(new ChatSession.CloseIfIdle(context.getSystem().ignoreRef())));
            return Behaviors.same();
          })
          .onMessage(LookupFailed.class, failed -> {
            context.getLog().warn("Cannot look up idle sessions; trying again at the next check", failed.error());
            return Behaviors.same();
          })
          .build();
    }));
  }

  private static Behavior<Command> lookup(ActorContext<Command> context, IdleSessions idleSessions,
      SessionSettings settings) {
    Instant cutoff = Instant.now().minus(settings.idleTimeout());
    context.pipeToSelf(idleSessions.openWithLastActivityBefore(cutoff, BATCH),
        (ids, error) -> error == null ? new Found(ids) : new LookupFailed(error));
    return Behaviors.same();
  }
}
