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
import dev.colloquy.engine.tenant.TenantInstructions;
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
  private TestProbe<TurnSupervisor.Ended> session;
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
        new EmptyKnowledgeBase(), turns, EngineMetrics.NONE, true,
        AnswerBudgets.fixed(EngineServices.DEFAULT_MAX_TOKENS), TenantInstructions.NONE);
    session = testKit.createTestProbe();
    subscriber = testKit.createTestProbe();
  }

  private ActorRef<TurnSupervisor.Command> start(String turnId) {
    TurnPlan plan = new TurnPlan("s1", "default", turnId, "trace", "hello", null, List.of(),
        List.of(new RunSpec("r1", "m")));
    ActorRef<TurnSupervisor.Command> supervisor = testKit.spawn(TurnSupervisor.create(plan, services, session.ref()));
    supervisor.tell(new TurnSupervisor.Subscribe(0, subscriber.ref()));
    return supervisor;
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

    TurnSupervisor.Ended ended = session.expectMessageClass(TurnSupervisor.Ended.class, WAIT);
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
  void aCancelledTurnStopsItsModelCallAndKeepsTheTextProducedSoFar() throws Exception {
    ActorRef<TurnSupervisor.Command> supervisor = start("t2");
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("partial");
    assertThat(nextEvent()).isInstanceOf(StreamEvent.Started.class);
    assertThat(nextEvent()).isInstanceOf(StreamEvent.Retrieved.class);
    assertThat(nextEvent()).isInstanceOf(StreamEvent.GapFound.class);
    assertThat(nextEvent()).isEqualTo(new StreamEvent.Token("r1", "partial"));

    supervisor.tell(new TurnSupervisor.Cancel("cancelled"));

    TurnSupervisor.Ended ended = session.expectMessageClass(TurnSupervisor.Ended.class, WAIT);
    assertThat(ended.ending()).isEqualTo(new TurnEnding.Cancelled("cancelled"));
    RunOutcome run = ended.outcome().runs().getFirst();
    assertThat(run.status()).isEqualTo(RunOutcome.Status.CANCELLED);
    assertThat(run.text()).isEqualTo("partial");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void aDrainInterruptsTheRunningTurnWhichEndsAsInterrupted() throws Exception {
    start("t3");
    model.nextCall();

    var drained = turns.drain(Duration.ZERO, WAIT);

    TurnSupervisor.Ended ended = session.expectMessageClass(TurnSupervisor.Ended.class, WAIT);
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
