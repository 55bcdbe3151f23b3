package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.config.AdmissionSettings;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The node's admission of new turns: places, the bounded queue, its timeout, and places given back by streams. */
class AdmissionTest {

  private static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static Admission admission(int places, int queue, Duration timeout) {
    return new Admission(new AdmissionSettings(places, places, queue, timeout));
  }

  private static String refusal(CompletableFuture<Admission.Place> place) {
    assertThat(place).isCompletedExceptionally();
    Throwable error = place.handle((ok, e) -> e instanceof CompletionException ? e.getCause() : e).join();
    return ((ApiException) error).code();
  }

  @Test
  void placesAreTakenAtOnceThenRequestsWaitAndGetAPlaceGivenBack() {
    Admission admission = admission(2, 10, Duration.ofSeconds(10));
    Admission.Place first = admission.enter().toCompletableFuture().join();
    admission.enter().toCompletableFuture().join();

    CompletableFuture<Admission.Place> waiting = admission.enter().toCompletableFuture();
    assertThat(waiting).isNotDone();
    first.leave();

    assertThat(waiting).isCompleted();
    assertThat(admission.free()).isZero();
  }

  @Test
  void aTurnTheSessionHasAcceptedGivesBackItsAcceptingPlaceAndKeepsItsStartingOne() {
    Admission admission = new Admission(new AdmissionSettings(1, 3, 10, Duration.ofSeconds(10)));
    Admission.Place first = admission.enter().toCompletableFuture().join();

    CompletableFuture<Admission.Place> second = admission.enter().toCompletableFuture();
    assertThat(second).as("one turn at a time is being accepted").isNotDone();
    first.accepted();

    assertThat(second).isCompleted();
    assertThat(admission.freeAccepting()).isZero();
    assertThat(admission.free()).as("both turns are still starting").isEqualTo(1);
    second.join().leave();
    assertThat(admission.freeAccepting()).isEqualTo(1);
    assertThat(admission.free()).isEqualTo(2);
  }

  @Test
  void turnsAcceptedButWaitingForTheirFirstTokenHoldBackNewOnesAtTheStartingBound() {
    Admission admission = new Admission(new AdmissionSettings(4, 1, 1, Duration.ofSeconds(10)));
    Admission.Place first = admission.enter().toCompletableFuture().join();
    first.accepted();

    CompletableFuture<Admission.Place> waiting = admission.enter().toCompletableFuture();
    assertThat(waiting).isNotDone();
    assertThat(refusal(admission.enter().toCompletableFuture())).isEqualTo(ErrorCode.OVERLOADED.name());
    first.leave();

    assertThat(waiting).isCompleted();
    assertThat(admission.freeAccepting()).isEqualTo(3);
  }

  /** Starts {@code count} turns and lets each reach its first token {@code took} after its place. */
  private static void startsTaking(Admission admission, AtomicLong clock, int count, Duration took) {
    List<Admission.Place> places = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      places.add(admission.enter().toCompletableFuture().join());
    }
    clock.addAndGet(took.toNanos());
    places.forEach(Admission.Place::started);
  }

  @Test
  void startsThatTakeLongerThanTheyUsedToLowerTheLimitAndNewTurnsWaitThenAreRefused() {
    AtomicLong clock = new AtomicLong();
    Admission admission = new Admission(new AdmissionSettings(10_000, 16, 4096, 0, Duration.ofSeconds(1)), clock::get);
    assertThat(admission.startingLimit()).as("the limit starts at its minimum").isEqualTo(16);
    for (int round = 0; round < 20; round++) {
      startsTaking(admission, clock, admission.startingLimit(), Duration.ofMillis(500));
    }
    int grown = admission.startingLimit();
    assertThat(grown).as("quick starts at the limit raise it").isGreaterThan(100);

    for (int round = 0; round < 10; round++) {
      startsTaking(admission, clock, admission.startingLimit(), Duration.ofSeconds(20));
    }

    int lowered = admission.startingLimit();
    assertThat(lowered).as("starts forty times slower lower it").isLessThan(grown / 2).isGreaterThanOrEqualTo(16);
    List<Admission.Place> held = new ArrayList<>();
    for (int i = 0; i < lowered; i++) {
      held.add(admission.enter().toCompletableFuture().join());
    }
    assertThat(refusal(admission.enter().toCompletableFuture())).isEqualTo(ErrorCode.OVERLOADED.name());
    held.forEach(Admission.Place::leave);
  }

  @Test
  void aLimitOnlyAdaptsWhileTheTurnsStartingReachHalfOfIt() {
    AtomicLong clock = new AtomicLong();
    Admission admission = new Admission(new AdmissionSettings(10_000, 16, 4096, 0, Duration.ofSeconds(1)), clock::get);

    for (int round = 0; round < 50; round++) {
      startsTaking(admission, clock, 4, Duration.ofSeconds(round % 2 == 0 ? 1 : 30));
    }

    assertThat(admission.startingLimit()).as("four at a time never come near a limit of 16").isEqualTo(16);
  }

  @Test
  void aFixedBoundStaysWhereItIsHoweverLongStartsTake() {
    AtomicLong clock = new AtomicLong();
    Admission admission = new Admission(new AdmissionSettings(100, 8, 8, 0, Duration.ofSeconds(1)), clock::get);

    for (int round = 0; round < 10; round++) {
      startsTaking(admission, clock, 8, Duration.ofSeconds(round < 5 ? 1 : 60));
    }

    assertThat(admission.startingLimit()).isEqualTo(8);
  }

  @Test
  void aFullQueueRefusesAtOnceWithOverloaded() {
    Admission admission = admission(1, 1, Duration.ofSeconds(10));
    admission.enter();
    admission.enter();

    assertThat(refusal(admission.enter().toCompletableFuture())).isEqualTo(ErrorCode.OVERLOADED.name());
  }

  @Test
  void aRequestThatWaitsItsLongestIsRefusedAndTakesNoPlaceLater() throws Exception {
    Admission admission = admission(1, 10, Duration.ofMillis(100));
    Admission.Place held = admission.enter().toCompletableFuture().join();
    CompletableFuture<Admission.Place> waiting = admission.enter().toCompletableFuture();

    Throwable refused = waiting.handle((ok, error) -> error).get(5, TimeUnit.SECONDS);
    held.leave();

    assertThat(((ApiException) (refused instanceof CompletionException ? refused.getCause() : refused)).code())
        .isEqualTo(ErrorCode.OVERLOADED.name());
    assertThat(admission.free()).isEqualTo(1);
  }

  @Test
  void leavingOrBeingAcceptedTwiceGivesBackEachPlaceOnce() {
    Admission admission = admission(1, 0, Duration.ofSeconds(1));
    Admission.Place place = admission.enter().toCompletableFuture().join();

    place.accepted();
    place.leave();
    place.leave();
    place.accepted();

    assertThat(admission.free()).isEqualTo(1);
    assertThat(admission.freeAccepting()).isEqualTo(1);
  }

  @Test
  void aStreamGivesItsPlaceBackAtItsFirstTokenThoughItGoesOn() throws Exception {
    Admission admission = admission(1, 0, Duration.ofSeconds(1));
    Admission.Place place = admission.enter().toCompletableFuture().join();

    place.heldUntilFirstToken(Source.from(List.of(STARTED, TOKEN)).concat(Source.never()))
        .runWith(Sink.ignore(), testKit.system());

    assertThat(freeWithin(admission, Duration.ofSeconds(5))).isEqualTo(1);
  }

  @Test
  void aStreamThatEndsOrIsCancelledBeforeAnyTokenGivesItsPlaceBack() throws Exception {
    Admission admission = admission(1, 0, Duration.ofSeconds(1));
    Admission.Place ended = admission.enter().toCompletableFuture().join();
    ended.heldUntilFirstToken(Source.from(List.of(STARTED, CANCELLED))).runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(freeWithin(admission, Duration.ofSeconds(5))).isEqualTo(1);

    Admission.Place cancelled = admission.enter().toCompletableFuture().join();
    cancelled.heldUntilFirstToken(Source.single(STARTED).concat(Source.never())).take(1)
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(freeWithin(admission, Duration.ofSeconds(5))).isEqualTo(1);
  }

  private static final TurnFrame STARTED = new TurnFrame(1, "s", "t", "tr", new StreamEvent.Started(List.of("r1")));
  private static final TurnFrame TOKEN = new TurnFrame(2, "s", "t", "tr", new StreamEvent.Token("r1", "hi"));
  private static final TurnFrame CANCELLED = new TurnFrame(2, "s", "t", "tr", new TurnEnding.Cancelled("cancelled"));

  /** Polls until a place is free: a stream gives it back from its own thread. */
  private static int freeWithin(Admission admission, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (admission.free() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return admission.free();
  }
}
