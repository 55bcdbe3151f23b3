package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.InFlight;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.FrameMark;
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
import dev.colloquy.engine.tenant.TenantInstructions;
import dev.colloquy.engine.tenant.FailoverPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A turn supervisor with a probe for its session, a reader of its transcript, and a model the test speaks for. */
class TurnSupervisorTest {

  /**
   * The question is a domain query (the offline rules route it), and with an empty knowledge base
   * every such turn finds one gap: started, intent, retrieval, gap, then the run.
   */
  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final Duration WAIT = Duration.ofSeconds(10);

  private ScriptedModel model;
  private InFlight turns;
  private EngineServices services;
  private TestProbe<TurnSupervisor.Report> session;
  private Transcript transcript;
  private TranscriptReader reader;

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
        new EmptyKnowledgeBase(), turns, EngineMetrics.NONE, true,
        AnswerBudgets.fixed(EngineServices.DEFAULT_MAX_TOKENS), TenantInstructions.NONE, FailoverPolicy.INTERRUPT,
        () -> true);
    session = testKit.createTestProbe();
  }

  private ActorRef<TurnSupervisor.Command> start(String turnId) {
    return start(turnId, new Transcript("s1", turnId, "trace", List.of(new RunSpec("r1", "scripted", "m"))));
  }

  private ActorRef<TurnSupervisor.Command> start(String turnId, Transcript transcript) {
    this.transcript = transcript;
    reader = TranscriptReader.read(testKit, transcript, 0);
    return spawn(turnId, transcript);
  }

  /** The turn's end, as the session hears it; the checkpoints before it are acknowledged as the session would. */
  private TurnSupervisor.Ended ended(ActorRef<TurnSupervisor.Command> supervisor) {
    while (true) {
      switch (session.expectMessageClass(TurnSupervisor.Report.class, WAIT)) {
        case TurnSupervisor.Ended ended -> {
          return ended;
        }
        case TurnSupervisor.Checkpoint checkpoint ->
            supervisor.tell(new TurnSupervisor.CheckpointJournaled(checkpoint.checkpoint().reservedThrough()));
      }
    }
  }

  /** The session hears of no end during {@code during}; checkpoints are acknowledged meanwhile. */
  private void expectNoEnd(ActorRef<TurnSupervisor.Command> supervisor, Duration during) {
    long deadline = System.nanoTime() + during.toNanos();
    for (long left = during.toNanos(); left > 0; left = deadline - System.nanoTime()) {
      TurnSupervisor.Report report;
      try {
        report = session.receiveMessage(Duration.ofNanos(left));
      } catch (AssertionError nothingCame) {
        return;
      }
      assertThat(report).isInstanceOf(TurnSupervisor.Checkpoint.class);
      supervisor.tell(new TurnSupervisor.CheckpointJournaled(
          ((TurnSupervisor.Checkpoint) report).checkpoint().reservedThrough()));
    }
  }

  private ActorRef<TurnSupervisor.Command> spawn(String turnId, Transcript transcript) {
    TurnPlan plan = new TurnPlan("s1", "default", turnId, "trace", "What is the refund policy?", null, List.of(),
        List.of(new RunSpec("r1", "scripted", "m")));
    return testKit.spawn(TurnSupervisor.create(plan, transcript, services, session.ref()));
  }

  private StreamEvent nextEvent() {
    return reader.nextEvent();
  }

  @Test
  void aCompletedTurnIsReportedAndItsTerminalFrameWaitsUntilTheSessionHasJournaledIt() throws Exception {
    ActorRef<TurnSupervisor.Command> supervisor = start("t1");
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("Hel");
    call.listener().onToken("lo");
    call.listener().onComplete(new TokenUsage(3, 2));

    assertThat(nextEvent()).isEqualTo(new StreamEvent.Started(List.of("r1")));
    assertThat(nextEvent()).isEqualTo(new StreamEvent.IntentRouted(Intent.DOMAIN_QUERY));
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
    assertThat(ended.outcome().frames()).containsExactly(FrameMark.of(FrameMark.Kind.STARTED),
        FrameMark.of(FrameMark.Kind.INTENT), FrameMark.of(FrameMark.Kind.RETRIEVAL), FrameMark.of(FrameMark.Kind.GAP),
        FrameMark.tokens(0, 3, 2), FrameMark.ofRun(FrameMark.Kind.RUN_COMPLETED, 0));
    reader.expectNothing(Duration.ofMillis(200));

    supervisor.tell(new TurnSupervisor.OutcomePersisted());
    TurnFrame terminal = reader.next();
    assertThat(terminal.id()).isEqualTo(8);
    assertThat(terminal.event()).isEqualTo(completed);
    session.expectTerminated(supervisor, WAIT);
    assertThat(turns.count()).isZero();
  }

  @Test
  void aCancelledTurnStopsItsModelCallAndKeepsTheTextProducedSoFar() throws Exception {
    ActorRef<TurnSupervisor.Command> supervisor = start("t2");
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("partial");
    assertThat(nextEvent()).isInstanceOf(StreamEvent.Started.class);
    assertThat(nextEvent()).isInstanceOf(StreamEvent.IntentRouted.class);
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

    TurnFrame terminal;
    do {
      terminal = reader.next();
    } while (!terminal.terminal());
    assertThat(terminal.id()).isEqualTo(TurnFrame.LOST_LAYOUT_TERMINAL_ID);
    assertThat(((TurnEnding.Failed) terminal.event()).interrupted()).isTrue();
    assertThat(turns.whenNoneRunning(WAIT).toCompletableFuture().get(10, TimeUnit.SECONDS)).isNull();
  }

  @Test
  void aTurnNobodyReadsIsCancelledAsDisconnectedOnceTheGraceHasPassed() throws Exception {
    useDisconnectGrace("300ms");
    ActorRef<TurnSupervisor.Command> supervisor =
        spawn("t5", new Transcript("s1", "t5", "trace", List.of(new RunSpec("r1", "scripted", "m"))));
    ScriptedModel.Call call = model.nextCall();

    TurnSupervisor.Ended ended = ended(supervisor);

    assertThat(ended.ending()).isEqualTo(new TurnEnding.Cancelled("disconnected"));
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void aReaderKeepsTheTurnGoingAndTheGraceStartsWhenTheLastOneLeaves() throws Exception {
    useDisconnectGrace("300ms");
    ActorRef<TurnSupervisor.Command> supervisor = start("t6");
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("still here");
    assertThat(nextEvent()).isInstanceOf(StreamEvent.Started.class);

    expectNoEnd(supervisor, Duration.ofMillis(900));
    reader.leave();

    TurnSupervisor.Ended ended = ended(supervisor);
    assertThat(ended.ending()).isEqualTo(new TurnEnding.Cancelled("disconnected"));
    assertThat(ended.outcome().runs().getFirst().text()).isEqualTo("still here");
  }

  @Test
  void aClientResumingMidTurnGetsTheFramesAfterItsIdThenTheLiveOnes() throws Exception {
    ActorRef<TurnSupervisor.Command> supervisor = start("t7");
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("a");
    call.listener().onToken("b");
    // started, intent, retrieval, gap, a, b
    for (int i = 0; i < 6; i++) {
      reader.next();
    }

    TranscriptReader resumed = TranscriptReader.read(testKit, transcript, 5);
    call.listener().onToken("c");

    assertThat(resumed.next().id()).isEqualTo(6);
    assertThat(resumed.nextEvent()).isEqualTo(new StreamEvent.Token("r1", "c"));
    supervisor.tell(new TurnSupervisor.Cancel("cancelled"));
  }

  @Test
  void framesBeyondTheLastJournaledCheckpointsReservationWaitForTheNextCheckpoint() throws Exception {
    // Its acceptance reserved ids 1 to 4 only: the fifth frame waits for a checkpoint to reserve more.
    ActorRef<TurnSupervisor.Command> supervisor =
        start("t8", new Transcript("s1", "t8", "trace", List.of(new RunSpec("r1", "scripted", "m")), List.of(), 4));
    ScriptedModel.Call call = model.nextCall();
    for (int i = 0; i < 6; i++) {
      call.listener().onToken("t" + i + " ");
    }
    TurnSupervisor.Checkpoint first =
        (TurnSupervisor.Checkpoint) session.expectMessageClass(TurnSupervisor.Report.class, WAIT);
    assertThat(first.checkpoint().frames()).isNotEmpty();
    for (long id = 1; id <= 4; id++) {
      assertThat(reader.next().id()).isEqualTo(id);
    }
    reader.expectNothing(Duration.ofMillis(300));

    supervisor.tell(new TurnSupervisor.CheckpointJournaled(first.checkpoint().reservedThrough()));

    assertThat(reader.next().id()).isEqualTo(5);
    call.listener().onComplete(new TokenUsage(3, 6));
    TurnSupervisor.Ended ended = ended(supervisor);
    supervisor.tell(new TurnSupervisor.OutcomePersisted());
    TurnFrame last;
    do {
      last = reader.next();
    } while (!last.terminal());
    // started, intent, retrieval, gap, six tokens, the run's end, the turn's end.
    assertThat(last.id()).isEqualTo(4 + 6 + 1 + 1);
    assertThat(last.event()).isEqualTo(ended.ending());
  }

  @Test
  void theIntervalsFramesSignalACheckpointWithoutWaitingForTheTick() throws Exception {
    useCheckpoints(8, "1h");
    ActorRef<TurnSupervisor.Command> supervisor = start("t9");
    ScriptedModel.Call call = model.nextCall();
    for (int i = 0; i < 4; i++) {
      call.listener().onToken("x");
    }

    TurnSupervisor.Checkpoint checkpoint =
        (TurnSupervisor.Checkpoint) session.expectMessageClass(TurnSupervisor.Report.class, WAIT);

    // started, intent, retrieval, gap and four tokens: the eighth frame signalled it.
    assertThat(checkpoint.checkpoint().texts()).containsExactly("xxxx");
    assertThat(checkpoint.checkpoint().reservedThrough()).isEqualTo(8 + 2 * 8);
    supervisor.tell(new TurnSupervisor.Cancel("cancelled"));
  }

  @Test
  void aCheckpointIsTakenAtTheTickWhenFewerFramesCame() throws Exception {
    useCheckpoints(1000, "200ms");
    ActorRef<TurnSupervisor.Command> supervisor = start("t10");
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("one");

    TurnSupervisor.Checkpoint checkpoint =
        (TurnSupervisor.Checkpoint) session.expectMessageClass(TurnSupervisor.Report.class, WAIT);

    assertThat(checkpoint.checkpoint().frames().getFirst()).isEqualTo(FrameMark.of(FrameMark.Kind.STARTED));
    supervisor.tell(new TurnSupervisor.Cancel("cancelled"));
  }

  @Test
  void aTurnRunAgainStreamsTheEarlierFramesThenItsOwnWithoutAStartedFrame() {
    List<TurnFrame> earlier = List.of(
        new TurnFrame(1, "s1", "t11", "trace", new StreamEvent.Started(List.of("old"))),
        new TurnFrame(2, "s1", "t11", "trace", new StreamEvent.Token("old", "Hi")),
        new TurnFrame(9, "s1", "t11", "trace", new StreamEvent.Restarted(List.of("r1"), "node_lost")));
    start("t11", new Transcript("s1", "t11", "trace", List.of(new RunSpec("r1", "scripted", "m")), earlier, 20));
    for (TurnFrame frame : earlier) {
      assertThat(reader.next()).isEqualTo(frame);
    }
    TurnFrame next = reader.next();
    assertThat(next.id()).isEqualTo(10);
    assertThat(next.event()).isInstanceOf(StreamEvent.IntentRouted.class);
    TurnFrame retrieved = reader.next();
    assertThat(retrieved.id()).isEqualTo(11);
    assertThat(retrieved.event()).isInstanceOf(StreamEvent.Retrieved.class);
  }

  private void useCheckpoints(int frames, String interval) {
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.parseString(
        "colloquy.session.checkpoint { frames = " + frames + ", interval = " + interval + " }")
        .withFallback(ConfigFactory.defaultReference()).resolve());
    services = new EngineServices(settings.session(), settings.llm(), new ModelCatalog(Map.of("m", model), "m"),
        new EmptyKnowledgeBase(), turns, EngineMetrics.NONE, true,
        AnswerBudgets.fixed(EngineServices.DEFAULT_MAX_TOKENS), TenantInstructions.NONE, FailoverPolicy.INTERRUPT,
        () -> true);
  }

  private void useDisconnectGrace(String grace) {
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.parseString(
        "colloquy.session.disconnect-grace = " + grace).withFallback(ConfigFactory.defaultReference()).resolve());
    services = new EngineServices(settings.session(), settings.llm(), new ModelCatalog(Map.of("m", model), "m"),
        new EmptyKnowledgeBase(), turns, EngineMetrics.NONE, true,
        AnswerBudgets.fixed(EngineServices.DEFAULT_MAX_TOKENS), TenantInstructions.NONE, FailoverPolicy.INTERRUPT,
        () -> true);
  }
}
