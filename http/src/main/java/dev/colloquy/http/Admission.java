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
 * The node's admission of new turns (see {@link AdmissionSettings}). A turn takes two places before it
 * is asked for: one among the turns being accepted, given back once the session has answered (the
 * turn is journaled, or refused), which bounds the writes to the journal; and one among the turns
 * starting, given back at the turn's first token or the end of its stream, which bounds the turns
 * waiting for their model (memory, since waiting costs no CPU). Requests that find either bound
 * reached wait in a bounded queue, without a thread, for at most the queue timeout; past either
 * bound they are refused with {@link ErrorCode#OVERLOADED}, before the session hears of them.
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
  private int freeAccepting;
  private int freeStarting;

  public Admission(AdmissionSettings settings) {
    this.settings = settings;
    this.freeAccepting = settings.maxAccepting();
    this.freeStarting = settings.maxStarting();
  }

  /**
   * The places of one new turn; {@link #accepted()} gives back the one among the turns being accepted,
   * {@link #leave()} both (either, more than once, is harmless).
   */
  public final class Place {
    private final AtomicBoolean accepted = new AtomicBoolean();
    private final AtomicBoolean left = new AtomicBoolean();

    private Place() {}

    /**
     * This place, now a turn's: given back after {@link #LONGEST_HOLD} at the latest. Only a place a
     * turn got is: one made for a waiter that had just given up is never its, and its places go
     * straight back (see {@link #handOver}); a release scheduled for it would give them back twice.
     */
    private Place granted() {
      CompletableFuture.delayedExecutor(LONGEST_HOLD.toMillis(), TimeUnit.MILLISECONDS).execute(this::leave);
      return this;
    }

    /** The session has answered the turn's start: its acceptance is journaled (or it was refused). */
    public void accepted() {
      if (accepted.compareAndSet(false, true)) {
        handOver(1, 0);
      }
    }

    public void leave() {
      if (left.compareAndSet(false, true)) {
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

  /** Takes the places now, or once they are free; fails with OVERLOADED when the queue is full or the wait too long. */
  public CompletionStage<Place> enter() {
    CompletableFuture<Place> waiting;
    synchronized (this) {
      if (queue.isEmpty() && freeAccepting > 0 && freeStarting > 0) {
        freeAccepting--;
        freeStarting--;
        return CompletableFuture.completedFuture(new Place().granted());
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
        } else {
          place.accepted();
        }
      });
    });
  }

  /** Places now free among the turns starting; for tests and metrics. */
  synchronized int free() {
    return freeStarting;
  }

  /** Places now free among the turns being accepted; for tests and metrics. */
  synchronized int freeAccepting() {
    return freeAccepting;
  }

  /**
   * Places given back go to the requests waiting, first come first served, as long as both kinds
   * are free; the rest stay free.
   */
  private void handOver(int accepting, int starting) {
    synchronized (this) {
      freeAccepting += accepting;
      freeStarting += starting;
    }
    while (true) {
      CompletableFuture<Place> next;
      synchronized (this) {
        if (freeAccepting == 0 || freeStarting == 0) {
          return;
        }
        next = queue.pollFirst();
        if (next == null) {
          return;
        }
        freeAccepting--;
        freeStarting--;
      }
      Place place = new Place();
      if (next.complete(place)) {
        place.granted();
      } else {
        // It gave up waiting: its places go back.
        synchronized (this) {
          freeAccepting++;
          freeStarting++;
        }
      }
    }
  }

  private static ApiException overloaded() {
    return new ApiException(ErrorCode.OVERLOADED,
        "This node is starting as many turns as it can; try again in a moment");
  }
}
