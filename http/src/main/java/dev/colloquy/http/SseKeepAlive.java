package dev.colloquy.http;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.BroadcastHub;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The keep-alive comments of every SSE stream of a node, from one timer per interval rather than one
 * per stream: a tick is broadcast to the open streams, each of which merges it into its own bytes. A
 * stream gets a comment every interval while it is open, the first within one interval of its start.
 */
public final class SseKeepAlive {

  /** Ticks a stream may miss while its connection is busy: the newest replaces one not yet written. */
  private static final int PENDING_TICKS = 1;
  /** How far apart the hub lets its streams be; each stream takes every tick at once, so this never fills. */
  private static final int HUB_BUFFER = 16;

  private final Source<Long, NotUsed> ticks;

  private SseKeepAlive(Source<Long, NotUsed> ticks) {
    this.ticks = ticks;
  }

  /** The node's keep-alive every {@code interval}; streams of the same interval share its timer. */
  public static SseKeepAlive of(ActorSystem<?> system, Duration interval) {
    return Timers.ID.apply(system).every(interval);
  }

  /**
   * {@code events} with a comment every interval whatever else flows, ending when they end. A stream
   * whose connection is slow does not hold the tick back from the others: it keeps only the newest.
   */
  public Source<ByteString, NotUsed> around(Source<ByteString, NotUsed> events) {
    return events.merge(comments(), true);
  }

  private Source<ByteString, NotUsed> comments() {
    // Only ticks after the stream's response was made: the hub may hold one from before anyone listened.
    long since = System.nanoTime();
    return ticks.buffer(PENDING_TICKS, OverflowStrategy.dropHead())
        .filter(at -> at - since > 0)
        .map(at -> SseFraming.KEEP_ALIVE);
  }

  /** One broadcast timer per interval, started on first use and stopped with the actor system. */
  private static final class Timers implements Extension {

    static final ExtensionId<Timers> ID = new ExtensionId<>() {
      @Override
      public Timers createExtension(ActorSystem<?> system) {
        return new Timers(system);
      }
    };

    private final ActorSystem<?> system;
    private final Map<Duration, SseKeepAlive> byInterval = new ConcurrentHashMap<>();

    private Timers(ActorSystem<?> system) {
      this.system = system;
    }

    SseKeepAlive every(Duration interval) {
      return byInterval.computeIfAbsent(interval, every -> new SseKeepAlive(
          Source.tick(every, every, NotUsed.getInstance()).map(tick -> System.nanoTime())
              .runWith(BroadcastHub.of(Long.class, HUB_BUFFER), system)));
    }
  }
}
