package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.InFlight;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.model.TokenUsage;
import dev.colloquy.engine.observe.EngineMetrics;
import dev.colloquy.engine.tenant.AnswerBudgets;
import dev.colloquy.engine.tenant.FailoverPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A turn supervisor with probes for its session and its subscriber, and a model the test speaks for. */
class TurnSupervisorTest {

  /** With an empty knowledge base every turn finds one gap: started, retrieval, gap, then the run. */
  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final Duration WAIT = Duration.ofSeconds(10);

  private ScriptedModel model;
  private InFlight turns;
  private EngineServices services;
  private TestProbe<TurnSupervisor.Report> session;
  private TestProbe<TurnFrame> subscriber;

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    model = new ScriptedModel();
    turns = new InFlight();
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.defaultReference().resolve());
    services = new EngineServices(settings.session(), settings.llm(), new ModelCatalog(Map.of("m", model), "m"),
        new EmptyKnowledgeBase(), (persistenceId, seqNr) -> null, turns, EngineMetrics.NONE, true,
        AnswerBudgets.fixed(EngineServices.DEFAULT_MAX_TOKENS), FailoverPolicy.INTERRUPT, () -> true);
    session = testKit.createTestProbe();
    subscriber = testKit.createTestProbe();
  }

  private ActorRef<TurnSupervisor.Command> start(String turnId) {
    return start(turnId, TurnSupervisor.Start.fresh(services.session().checkpoint().reserve()));
  }

  private ActorRef<TurnSupervisor.Command> start(String turnId, TurnSupervisor.Start start) {
    TurnPlan plan = new TurnPlan("s1", "default", turnId, "trace", "hello", null, List.of(),
        List.of(new RunSpec("r1", "m")));
    ActorRef<TurnSupervisor.Command> supervisor = testKit.spawn(TurnSupervisor.create(plan, services, session.ref(),
        start));
    supervisor.tell(new TurnSupervisor.Subscribe(0, subscriber.ref()));
    return supervisor;
  }

  /** The turn's end, as the session hears it; the checkpoints before it are acknowledged as the session would. */
  private TurnSupervisor.Ended ended(ActorRef<TurnSupervisor.Command> supervisor) {
    while (true) {
      TurnSupervisor.Report report = session.expectMessageClass(TurnSupervisor.Report.class, WAIT);
      switch (report) {
        case TurnSupervisor.Ended ended -> {
          return ended;
        }
        case TurnSupervisor.Checkpoint checkpoint ->
            supervisor.tell(new TurnSupervisor.CheckpointJournaled(checkpoint.checkpoint().reservedThrough()));
      }
    }
  }

  private StreamEvent nextEvent() {
    return subscriber.expectMessageClass(TurnFrame.class, WAIT).event();
  }

  @Test
  void aCompletedTurnIsReportedAndItsTerminalFrameWaitsUntilTheSessionHasJournaledIt() throws Exception {
    ActorRef<TurnSupervisor.Command> supervisor = start("t1");
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("Hel");
    call.listener().onToken("lo");
    call.listener().onComplete(new TokenUsage(3, 2));

    assertThat(nextEvent()).isEqualTo(new StreamEvent.Started(List.of("r1")));
    assertThat(nextEvent()).isInstanceOf(StreamEvent.Retrieved.class);
    assertThat(nextEvent()).isInstanceOf(StreamEvent.GapFound.class);
    assertThat(nextEvent()).isEqualTo(new StreamEvent.Token("r1", "Hel"));
    assertThat(nextEvent()).isEqualTo(new StreamEvent.Token("r1", "lo"));
    assertThat(nextEvent()).isInstanceOf(StreamEvent.RunCompleted.class);

    TurnSupervisor.Ended ended = ended(supervisor);
    assertThat(ended.turnId()).isEqualTo("t1");
    TurnEnding.Completed completed = (TurnEnding.Completed) ended.ending();
    assertThat(completed.text()).isEqualTo("Hello");
    assertThat(completed.usage().totalTokens()).isEqualTo(5);
    assertThat(ended.outcome().frames()).hasSize(6);
    subscriber.expectNoMessage(Duration.ofMillis(200));

    supervisor.tell(new TurnSupervisor.OutcomePersisted());
    TurnFrame terminal = subscriber.expectMessageClass(TurnFrame.class, WAIT);
    assertThat(terminal.id()).isEqualTo(7);
    assertThat(terminal.event()).isEqualTo(completed);
    subscriber.expectTerminated(supervisor, WAIT);
    assertThat(turns.count()).isZero();
  }

  @Test
  void framesBeyondTheLastJournaledCheckpointsReservationWaitForTheNextCheckpoint() throws Exception {
    // Its acceptance reserved ids 1 to 4 only: the fifth frame waits for a checkpoint to reserve more.
    ActorRef<TurnSupervisor.Command> supervisor = start("t5", TurnSupervisor.Start.fresh(4));
    ScriptedModel.Call call = model.nextCall();
    for (int i = 0; i < 6; i++) {
      call.listener().onToken("t" + i + " ");
    }
    TurnSupervisor.Checkpoint first = (TurnSupervisor.Checkpoint) session.expectMessageClass(TurnSupervisor.Report.class, WAIT);
    assertThat(first.checkpoint().frames()).hasSize(4);
    for (long id = 1; id <= 4; id++) {
      assertThat(subscriber.expectMessageClass(TurnFrame.class, WAIT).id()).isEqualTo(id);
    }
    subscriber.expectNoMessage(Duration.ofMillis(300));

    supervisor.tell(new TurnSupervisor.CheckpointJournaled(first.checkpoint().reservedThrough()));

    assertThat(subscriber.expectMessageClass(TurnFrame.class, WAIT).id()).isEqualTo(5);
    call.listener().onComplete(new TokenUsage(3, 6));
    TurnSupervisor.Ended ended = ended(supervisor);
    supervisor.tell(new TurnSupervisor.OutcomePersisted());
    List<TurnFrame> rest = subscriber.receiveSeveralMessages(ended.outcome().frames().size() + 1 - 5, WAIT);
    assertThat(rest.getLast().id()).isEqualTo(ended.outcome().frames().size() + 1);
    assertThat(rest.getLast().event()).isEqualTo(ended.ending());
  }

  @Test
  void aTurnRunAgainStreamsTheEarlierFramesThenItsOwnWithoutAStartedFrame() {
    List<TurnFrame> earlier = List.of(
        new TurnFrame(1, "s1", "t6", "trace", new StreamEvent.Started(List.of("old"))),
        new TurnFrame(2, "s1", "t6", "trace", new StreamEvent.Token("old", "Hi")),
        new TurnFrame(9, "s1", "t6", "trace", new StreamEvent.Restarted(List.of("r1"), "node_lost")));
    start("t6", new TurnSupervisor.Start(20, earlier));
    for (TurnFrame frame : earlier) {
      assertThat(subscriber.expectMessageClass(TurnFrame.class, WAIT)).isEqualTo(frame);
    }
    TurnFrame next = subscriber.expectMessageClass(TurnFrame.class, WAIT);
    assertThat(next.id()).isEqualTo(10);
    assertThat(next.event()).isInstanceOf(StreamEvent.Retrieved.class);
  }

  @Test
  void aCancelledTurnStopsItsModelCallAndKeepsTheTextProducedSoFar() throws Exception {
    ActorRef<TurnSupervisor.Command> supervisor = start("t2");
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("partial");
    assertThat(nextEvent()).isInstanceOf(StreamEvent.Started.class);
    assertThat(nextEvent()).isInstanceOf(StreamEvent.Retrieved.class);
    assertThat(nextEvent()).isInstanceOf(StreamEvent.GapFound.class);
    assertThat(nextEvent()).isEqualTo(new StreamEvent.Token("r1", "partial"));

    supervisor.tell(new TurnSupervisor.Cancel("cancelled"));

    TurnSupervisor.Ended ended = ended(supervisor);
    assertThat(ended.ending()).isEqualTo(new TurnEnding.Cancelled("cancelled"));
    RunOutcome run = ended.outcome().runs().getFirst();
    assertThat(run.status()).isEqualTo(RunOutcome.Status.CANCELLED);
    assertThat(run.text()).isEqualTo("partial");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void aDrainInterruptsTheRunningTurnWhichEndsAsInterrupted() throws Exception {
    ActorRef<TurnSupervisor.Command> supervisor = start("t3");
    model.nextCall();

    var drained = turns.drain(Duration.ZERO, WAIT);

    TurnSupervisor.Ended ended = ended(supervisor);
    assertThat(ended.ending()).isInstanceOfSatisfying(TurnEnding.Failed.class,
        failed -> assertThat(failed.interrupted()).isTrue());
    assertThat(turns.draining()).isTrue();
    assertThat(drained.toCompletableFuture().isDone()).isFalse();
  }

  @Test
  void aTurnStoppedBeforeItsOutcomeWasJournaledEndsItsStreamAtTheReservedId() throws Exception {
    ActorRef<TurnSupervisor.Command> supervisor = start("t4");
    model.nextCall();
    assertThat(nextEvent()).isInstanceOf(StreamEvent.Started.class);

    testKit.stop(supervisor, WAIT);

    TurnFrame terminal = subscriber.fishForMessage(WAIT,
        frame -> frame.terminal() ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore()).getLast();
    assertThat(terminal.id()).isEqualTo(TurnFrame.LOST_LAYOUT_TERMINAL_ID);
    assertThat(((TurnEnding.Failed) terminal.event()).interrupted()).isTrue();
    assertThat(turns.whenNoneRunning(WAIT).toCompletableFuture().get(10, TimeUnit.SECONDS)).isNull();
  }
}
