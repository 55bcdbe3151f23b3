package dev.colloquy.engine.tenant;

import dev.colloquy.engine.CborSerializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * The rate limits and stream slots of one tenant, as one sharded entity: every node's requests for
 * the tenant meet here, so a limit holds across the cluster. Nothing is journaled: a bucket is
 * a minute's worth of state and a write per request would cost more than the request; when the entity
 * moves or restarts its buckets start full and its stream slots empty, which errs towards letting
 * requests in for at most one minute.
 */
public final class TenantLimiter {

  public static final EntityTypeKey<Command> ENTITY_KEY = EntityTypeKey.create(Command.class, "TenantLimiter");

  public static final String RATE_LIMITED = "RATE_LIMITED";
  public static final String QUOTA_EXCEEDED = "QUOTA_EXCEEDED";

  // ---- commands ----

  public sealed interface Command extends CborSerializable {}

  /** One token from the bucket named {@code key}, whose rate is {@code perMinute}. */
  public record Take(String key, int perMinute) implements CborSerializable {}

  /**
   * Take every token, and a stream slot when {@code streamId} is set, or nothing at all: a refused
   * request uses up none of its limits.
   */
  public record Acquire(List<Take> takes, String streamId, int maxStreams, ActorRef<Verdict> replyTo)
      implements Command {}

  /** The stream has ended; its slot is free. */
  public record ReleaseStream(String streamId) implements Command {}

  // ---- replies ----

  public sealed interface Verdict extends CborSerializable {}

  public record Allowed() implements Verdict {}

  public record Refused(String code, String message, long retryAfterSeconds) implements Verdict {}

  private TenantLimiter() {}

  /**
   * {@code tenantId}'s limiter; {@code streamLease}: how long a slot is held when its release never comes
   * (its node died). While it runs, this node's requests take their tokens in place ({@link HostedLimiters}).
   */
  public static Behavior<Command> create(String tenantId, Duration streamLease, LongSupplier clockMillis) {
    return Behaviors.setup(context -> {
      HostedLimiters hosted = HostedLimiters.get(context.getSystem());
      Limits limits = new Limits(streamLease.toMillis(), clockMillis);
      hosted.hold(tenantId, limits);
      return limits.behavior(() -> hosted.release(tenantId, limits));
    });
  }

  public static ActorRef<ShardingEnvelope<Command>> init(ActorSystem<?> system, Duration streamLease) {
    return ClusterSharding.get(system)
        .init(Entity.of(ENTITY_KEY, entity -> create(entity.getEntityId(), streamLease, System::currentTimeMillis)));
  }

  /**
   * The mutable state of one tenant's entity; it lives and dies with the actor. Its own messages and the
   * requests of its node ({@link HostedLimiters}) change it under its lock.
   */
  static final class Limits {

    /** Buckets untouched for a minute are full again, as good as absent; past this many they are dropped. */
    private static final int PRUNE_ABOVE = 1_000;

    private final long streamLeaseMillis;
    private final LongSupplier clock;
    private final Map<String, TokenBucket> buckets = new HashMap<>();
    /** Buckets are pruned once there are more than this many (see {@link #acquire}). */
    private int pruneAbove = PRUNE_ABOVE;
    /**
     * Open streams by id, with when their slot lapses, in the order they lapse: every slot is held for
     * the same lease from when it was taken, and one taken again moves to the end. (Should the wall clock
     * step back, a slot taken after the step lapses only once those before it have: late by the step.)
     */
    private final LinkedHashMap<String, Long> streams = new LinkedHashMap<>();

    Limits(long streamLeaseMillis, LongSupplier clock) {
      this.streamLeaseMillis = streamLeaseMillis;
      this.clock = clock;
    }

    Behavior<Command> behavior(Runnable stopped) {
      return Behaviors.receive(Command.class)
          .onMessage(Acquire.class, acquire -> {
            acquire.replyTo().tell(acquire(acquire.takes(), acquire.streamId(), acquire.maxStreams()));
            return Behaviors.same();
          })
          .onMessage(ReleaseStream.class, release -> {
            release(release.streamId());
            return Behaviors.same();
          })
          .onSignal(PostStop.class, signal -> {
            stopped.run();
            return Behaviors.same();
          })
          .build();
    }

    private synchronized void release(String streamId) {
      streams.remove(streamId);
    }

    synchronized Verdict acquire(List<Take> takes, String streamId, int maxStreams) {
      long now = clock.getAsLong();
      if (buckets.size() > pruneAbove) {
        buckets.values().removeIf(bucket -> now - bucket.updatedAtMillis() >= TokenBucket.REFILL_MILLIS);
        // Next once they have doubled: a tenant with more callers active within the minute than the
        // threshold would otherwise have all its buckets looked over on every request.
        pruneAbove = Math.max(PRUNE_ABOVE, 2 * buckets.size());
      }
      long wait = 0;
      Map<String, TokenBucket> refilled = new HashMap<>();
      for (Take take : takes) {
        TokenBucket bucket = buckets.getOrDefault(take.key(), TokenBucket.full(take.perMinute(), now))
            .refilled(take.perMinute(), now);
        refilled.put(take.key(), bucket);
        if (!bucket.hasToken()) {
          wait = Math.max(wait, bucket.secondsUntilToken(take.perMinute()));
        }
      }
      buckets.putAll(refilled);
      if (wait > 0) {
        return new Refused(RATE_LIMITED, "Too many requests; try again in " + wait + " s", wait);
      }
      if (streamId != null) {
        expireStreams(now);
        if (!streams.containsKey(streamId) && streams.size() >= maxStreams) {
          return new Refused(QUOTA_EXCEEDED,
              "The tenant has " + maxStreams + " streams open, its limit; try again when one ends", 1);
        }
        streams.remove(streamId);
        streams.put(streamId, now + streamLeaseMillis);
      }
      refilled.forEach((key, bucket) -> buckets.put(key, bucket.taken()));
      return new Allowed();
    }

    /**
     * Frees the slots whose lease has lapsed: those at the front, so a request looks at the lapsed ones
     * and one more. (It looked at every open stream, which made the tenant's 10,000th stream cost
     * 10,000 steps under this lock: a fifth of a node's CPU in the 10,000-stream soak.)
     */
    private void expireStreams(long now) {
      for (Iterator<Long> lapses = streams.values().iterator(); lapses.hasNext(); ) {
        if (lapses.next() > now) {
          return;
        }
        lapses.remove();
      }
    }
  }
}
