package dev.colloquy.engine.session;

import dev.colloquy.config.SessionSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;

/**
 * Closes sessions that have been idle for their tenant's idle timeout. It works from the read side's
 * list of open sessions and their last activity rather than from timers inside the entities, so a
 * session passivated before its deadline, or a whole cluster stopped across it, is still closed. One
 * runs per cluster; each session it asks decides from its own state whether it really is idle.
 *
 * <p>A check goes tenant by tenant: the tenants with a session idle for at least the shortest timeout
 * any tenant may have, then for each its own timeout and only its sessions past it. So a session is
 * woken only when its own tenant's deadline has passed, and one tenant's backlog (at most {@link
 * #BATCH} a check) never delays another's.
 */
public final class IdleSessionReaper extends AbstractBehavior<IdleSessionReaper.Command> {

  public sealed interface Command {}

  private record Check() implements Command {}

  private record TenantsFound(List<String> tenantIds) implements Command {}

  private record TenantChecked(String tenantId, Duration idleTimeout, List<String> sessionIds) implements Command {}

  private record TenantsLookupFailed(Throwable error) implements Command {}

  private record TenantLookupFailed(String tenantId, Throwable error) implements Command {}

  /** Most sessions of one tenant asked per check; the rest wait for the next one. */
  static final int BATCH = 500;

  private final IdleSessions idleSessions;
  private final IdleTimeouts timeouts;
  private final ClusterSharding sharding;
  private final Queue<String> tenantsToCheck = new ArrayDeque<>();
  private boolean checking;

  private IdleSessionReaper(ActorContext<Command> context, IdleSessions idleSessions, IdleTimeouts timeouts) {
    super(context);
    this.idleSessions = idleSessions;
    this.timeouts = timeouts;
    this.sharding = ClusterSharding.get(context.getSystem());
  }

  public static void init(ActorSystem<?> system, IdleSessions idleSessions, IdleTimeouts timeouts,
      SessionSettings settings) {
    ClusterSingleton.get(system).init(SingletonActor.of(
        Behaviors.supervise(create(idleSessions, timeouts, settings)).onFailure(SupervisorStrategy.restart()),
        "idle-session-reaper"));
  }

  static Behavior<Command> create(IdleSessions idleSessions, IdleTimeouts timeouts, SessionSettings settings) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(new Check(), settings.idleCheckInterval());
      return new IdleSessionReaper(context, idleSessions, timeouts);
    }));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Check.class, check -> onCheck())
        .onMessage(TenantsFound.class, this::onTenantsFound)
        .onMessage(TenantChecked.class, this::onTenantChecked)
        .onMessage(TenantsLookupFailed.class, this::onTenantsLookupFailed)
        .onMessage(TenantLookupFailed.class, this::onTenantLookupFailed)
        .build();
  }

  /** A check still going when the next one is due (many tenants, a slow database) is not started twice. */
  private Behavior<Command> onCheck() {
    if (checking) {
      return this;
    }
    checking = true;
    Instant cutoff = Instant.now().minus(timeouts.shortest());
    getContext().pipeToSelf(idleSessions.tenantsWithOpenSessionsBefore(cutoff),
        (tenants, error) -> error == null ? new TenantsFound(tenants) : new TenantsLookupFailed(error));
    return this;
  }

  private Behavior<Command> onTenantsFound(TenantsFound found) {
    tenantsToCheck.addAll(found.tenantIds());
    return checkNextTenant();
  }

  private Behavior<Command> checkNextTenant() {
    String tenantId = tenantsToCheck.poll();
    if (tenantId == null) {
      checking = false;
      return this;
    }
    getContext().pipeToSelf(
        timeouts.idleTimeout(tenantId).thenCompose(timeout ->
            idleSessions.openWithLastActivityBefore(tenantId, Instant.now().minus(timeout), BATCH)
                .thenApply(ids -> new TenantChecked(tenantId, timeout, ids))),
        (checked, error) -> error == null ? checked : new TenantLookupFailed(tenantId, error));
    return this;
  }

  private Behavior<Command> onTenantChecked(TenantChecked checked) {
    checked.sessionIds().forEach(sessionId -> sharding.entityRefFor(ChatSession.ENTITY_KEY, sessionId)
        .tell(new ChatSession.CloseIfIdle(checked.idleTimeout(), getContext().getSystem().ignoreRef())));
    return checkNextTenant();
  }

  private Behavior<Command> onTenantsLookupFailed(TenantsLookupFailed failed) {
    getContext().getLog().warn("Cannot look up tenants with idle sessions; trying again at the next check",
        failed.error());
    checking = false;
    return this;
  }

  private Behavior<Command> onTenantLookupFailed(TenantLookupFailed failed) {
    getContext().getLog().warn("Cannot look up the idle sessions of tenant {}; trying again at the next check",
        failed.tenantId(), failed.error());
    return checkNextTenant();
  }
}
