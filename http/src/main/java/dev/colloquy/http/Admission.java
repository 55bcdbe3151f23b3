package dev.colloquy.http;

import dev.colloquy.config.AdmissionSettings;
import dev.colloquy.engine.Timeouts;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.session.ChatSession;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;
import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.functions.SquareRootFunction;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The node's admission of new turns (see {@link AdmissionSettings}). A turn takes two places before it
 * is asked for: one among the turns being accepted, given back once the session has answered (the
 * turn is journaled, or refused), which bounds the writes to the journal; and one among the turns
 * starting, given back at the turn's first token or the end of its stream, which bounds the turns
 * waiting for their model. Requests that find either bound reached wait in a bounded queue, without
 * a thread, for at most the queue timeout; past either bound they are refused with
 * {@link ErrorCode#OVERLOADED}, before the session hears of them.
 *
 * <p>The bound on turns starting adapts between the settings' minimum and maximum: each turn's time
 * from its place to its first token is a sample of Netflix's gradient limit, which lowers the bound
 * as starts take longer than their long-run average and raises it while they do not. A node whose
 * starts slow down (its CPU, its journal or its model cannot keep up) thus stops taking new turns
 * before the ones it took wait out their first-token timeout.
 */
public final class Admission {

  /** Admits every turn at once: for routes tested without a node's limits. */
  public static final Admission UNLIMITED =
      new Admission(new AdmissionSettings(Integer.MAX_VALUE, Integer.MAX_VALUE, 0, Duration.ofSeconds(1)));

  /**
   * A place no stream gives back (its response was dropped with its connection before the stream
   * ran) is given back after this long at the latest.
   */
  private static final Duration LONGEST_HOLD = Duration.ofMinutes(2);

  private final AdmissionSettings settings;
  private final Deque<CompletableFuture<Place>> queue = new ArrayDeque<>();
  /** How many turns may be starting now; its samples are taken outside this object's lock. */
  private final Limit startingLimit;
  private final LongSupplier nanoClock;
  private int accepting;
  private int starting;

  public Admission(AdmissionSettings settings) {
    this(settings, System::nanoTime);
  }

  /** With the clock that times each turn's start (tests set it). */
  Admission(AdmissionSettings settings, LongSupplier nanoClock) {
    this.settings = settings;
    this.nanoClock = nanoClock;
    this.startingLimit = Gradient2Limit.newBuilder()
        .initialLimit(settings.minStarting())
        .minLimit(settings.minStarting())
        .maxConcurrency(settings.maxStarting())
        // Room to grow by the square root of the limit per quick start: from the minimum to thousands
        // within a few hundred starts, while a slow one takes about a tenth off.
        .queueSize(SquareRootFunction.create(4))
        // The long-run average start is taken over this many starts (the library's 600): at hundreds
        // of starts a second a shorter one made an overload the new normal within seconds, and the
        // limit climbed back while the turns it let in waited out their first-token timeout.
        .longWindow(10_000)
        .build();
  }

  /**
   * The places of one new turn; {@link #accepted()} gives back the one among the turns being accepted,
   * {@link #leave()} both (either, more than once, is harmless).
   */
  public final class Place {
    private final AtomicBoolean accepted = new AtomicBoolean();
    private final AtomicBoolean left = new AtomicBoolean();
    private long grantedNanos;
    /** The release after {@link #LONGEST_HOLD}, cancelled when the place is given back before. */
    private volatile ScheduledFuture<?> hold;

    private Place() {}

    /**
     * This place, now a turn's: given back after {@link #LONGEST_HOLD} at the latest. Only a place a
     * turn got is: one made for a waiter that had just given up is never its, and its places go
     * straight back (see {@link #handOver}); a release scheduled for it would give them back twice.
     */
    private Place granted() {
      grantedNanos = nanoClock.getAsLong();
      hold = Timeouts.after(LONGEST_HOLD, this::leave);
      return this;
    }

    /**
     * The turn has its first token, or ended before one: how long that took is a sample of the limit
     * on turns starting, and the place goes back.
     */
    void started() {
      if (!left.get()) {
        startingLimit.onSample(grantedNanos, nanoClock.getAsLong() - grantedNanos, startingNow(), false);
      }
      // Giving the place back also lets in whoever waits, under the limit the sample set.
      leave();
    }

    /** The session has answered the turn's start: its acceptance is journaled (or it was refused). */
    public void accepted() {
      if (accepted.compareAndSet(false, true)) {
        handOver(1, 0);
      }
    }

    public void leave() {
      if (left.compareAndSet(false, true)) {
        ScheduledFuture<?> release = hold;
        if (release != null) {
          release.cancel(false);
        }
        handOver(accepted.compareAndSet(false, true) ? 1 : 0, 1);
      }
    }

    /**
     * {@code turn} with frames that give the place back at its first token or the end of its stream;
     * a turn with nothing to stream gives it back at once.
     */
    public ChatSession.TurnReply held(ChatSession.TurnReply turn) {
      if (turn.nothingFollows()) {
        leave();
        return turn;
      }
      return new ChatSession.TurnReply(turn.turnId(), turn.traceId(), turn.existing(), turn.ended(), turn.replayed(),
          turn.frames().through(this::heldUntilFirstToken), turn.runs());
    }

    /** The turn's frames, giving the place back at its first token or when the stream ends, whichever comes first. */
    Source<TurnFrame, NotUsed> heldUntilFirstToken(Source<TurnFrame, NotUsed> frames) {
      return frames
          .map(frame -> {
            if (frame.event() instanceof StreamEvent.Token || frame.terminal()) {
              started();
            }
            return frame;
          })
          .watchTermination((mat, done) -> {
            done.whenComplete((ok, error) -> leave());
            return mat;
          });
    }
  }

  /** Takes the places now, or once they are free; fails with OVERLOADED when the queue is full or the wait too long. */
  public CompletionStage<Place> enter() {
    CompletableFuture<Place> waiting;
    synchronized (this) {
      if (queue.isEmpty() && freeAccepting() > 0 && free() > 0) {
        accepting++;
        starting++;
        return CompletableFuture.completedFuture(new Place().granted());
      }
      if (queue.size() >= settings.queueSize()) {
        return CompletableFuture.failedFuture(overloaded());
      }
      waiting = new CompletableFuture<>();
      queue.addLast(waiting);
    }
    Timeouts.within(waiting, settings.queueTimeout()).exceptionally(timedOut -> {
      synchronized (this) {
        queue.remove(waiting);
      }
      return null;
    });
    return waiting.handle((place, error) -> {
      if (error != null) {
        throw overloaded();
      }
      return place;
    });
  }

  /**
   * Runs {@code start} once it has a place (see {@link #enter()}), which it hands on to the turn's
   * frames with {@link Place#held}; a start that fails gives the place back. A refusal fails with
   * {@link ErrorCode#OVERLOADED} before {@code start} runs, so nothing reaches a session.
   */
  public <T> CompletionStage<T> admit(Function<Place, CompletionStage<T>> start) {
    return enter().thenCompose(place -> {
      CompletionStage<T> started;
      try {
        started = start.apply(place);
      } catch (RuntimeException refused) {
        place.leave();
        throw refused;
      }
      return started.whenComplete((value, error) -> {
        if (error != null) {
          place.leave();
        } else {
          place.accepted();
        }
      });
    });
  }

  /** Places now free among the turns starting, under the limit as it stands; for tests and metrics. */
  synchronized int free() {
    return Math.max(0, startingLimit.getLimit() - starting);
  }

  /** Places now free among the turns being accepted; for tests and metrics. */
  synchronized int freeAccepting() {
    return settings.maxAccepting() - accepting;
  }

  /** How many turns may be starting at once now. */
  public int startingLimit() {
    return startingLimit.getLimit();
  }

  private synchronized int startingNow() {
    return starting;
  }

  /**
   * Places given back go to the requests waiting, first come first served, as long as both kinds
   * are free; the rest stay free.
   */
  private void handOver(int acceptingLeft, int startingLeft) {
    synchronized (this) {
      accepting -= acceptingLeft;
      starting -= startingLeft;
    }
    while (true) {
      CompletableFuture<Place> next;
      synchronized (this) {
        if (freeAccepting() <= 0 || free() <= 0) {
          return;
        }
        next = queue.pollFirst();
        if (next == null) {
          return;
        }
        accepting++;
        starting++;
      }
      Place place = new Place();
      if (next.complete(place)) {
        place.granted();
      } else {
        // It gave up waiting: its places go back.
        synchronized (this) {
          accepting--;
          starting--;
        }
      }
    }
  }

  private static ApiException overloaded() {
    return new ApiException(ErrorCode.OVERLOADED,
        "This node is starting as many turns as it can; try again in a moment");
  }
}
