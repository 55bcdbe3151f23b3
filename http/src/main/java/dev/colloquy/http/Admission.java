package dev.colloquy.http;

import dev.colloquy.config.AdmissionSettings;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.session.ChatSession;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The node's admission of new turns (see {@link AdmissionSettings}): a place is taken before a turn
 * is asked for and given back at the turn's first token or the end of its stream. Requests that find
 * every place taken wait in a bounded queue, without a thread, for at most the queue timeout; past
 * either bound they are refused with {@link ErrorCode#OVERLOADED}, before the session hears of them.
 */
public final class Admission {

  /** Admits every turn at once: for routes tested without a node's limits. */
  public static final Admission UNLIMITED =
      new Admission(new AdmissionSettings(Integer.MAX_VALUE, 0, Duration.ofSeconds(1)));

  /**
   * A place no stream gives back (its response was dropped with its connection before the stream
   * ran) is given back after this long at the latest.
   */
  private static final Duration LONGEST_HOLD = Duration.ofMinutes(2);

  private final AdmissionSettings settings;
  private final Deque<CompletableFuture<Place>> queue = new ArrayDeque<>();
  private int free;

  public Admission(AdmissionSettings settings) {
    this.settings = settings;
    this.free = settings.maxStarting();
  }

  /** A place for one starting turn; {@link #leave()} gives it back (more than once is harmless). */
  public final class Place {
    private final AtomicBoolean left = new AtomicBoolean();

    private Place() {
      CompletableFuture.delayedExecutor(LONGEST_HOLD.toMillis(), TimeUnit.MILLISECONDS).execute(this::leave);
    }

    public void leave() {
      if (left.compareAndSet(false, true)) {
        handOver();
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
              leave();
            }
            return frame;
          })
          .watchTermination((mat, done) -> {
            done.whenComplete((ok, error) -> leave());
            return mat;
          });
    }
  }

  /** Takes a place now, or once one is free; fails with OVERLOADED when the queue is full or the wait too long. */
  public CompletionStage<Place> enter() {
    CompletableFuture<Place> waiting;
    synchronized (this) {
      if (free > 0) {
        free--;
        return CompletableFuture.completedFuture(new Place());
      }
      if (queue.size() >= settings.queueSize()) {
        return CompletableFuture.failedFuture(overloaded());
      }
      waiting = new CompletableFuture<>();
      queue.addLast(waiting);
    }
    waiting.orTimeout(settings.queueTimeout().toMillis(), TimeUnit.MILLISECONDS).exceptionally(timedOut -> {
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
        }
      });
    });
  }

  /** Places now free; for tests and metrics. */
  synchronized int free() {
    return free;
  }

  /** A place given back goes to the first request still waiting, or becomes free. */
  private void handOver() {
    while (true) {
      CompletableFuture<Place> next;
      synchronized (this) {
        next = queue.pollFirst();
        if (next == null) {
          free++;
          return;
        }
      }
      if (next.complete(new Place())) {
        return;
      }
    }
  }

  private static ApiException overloaded() {
    return new ApiException(ErrorCode.OVERLOADED,
        "This node is starting as many turns as it can; try again in a moment");
  }
}
