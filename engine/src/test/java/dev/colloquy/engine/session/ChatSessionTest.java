package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.turn.RunOutcome;
import dev.colloquy.engine.turn.TurnEvent;
import dev.colloquy.engine.turn.TurnFrame;
import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The session entity, command by command in every state, with the journal and serialization of
 * the persistence testkit. Quick turns use the offline responder; turns that must still be running
 * use the mock model server over HTTP ("slow" streams for seconds, "broken" fails).
 */
class ChatSessionTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private static ActorTestKit testKit;
  private static MockLlmServer mock;

  private EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> session;
  private TestEngine.RecordingPurger purger;
  private String sessionId;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
    mock = MockLlmServer.start(MockLlmSettings.defaults().withTokens(40)
        .withDelays(Duration.ofMillis(20), Duration.ofMillis(100)).failing(FailureMode.HTTP_500, "broken"),
        "127.0.0.1", 0);
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
    mock.close();
  }

  @AfterEach
  void clear() {
    if (session != null) {
      session.clear();
    }
  }

  private void newSession(String overrides) {
    purger = new TestEngine.RecordingPurger();
    String settings = "colloquy.llm { base-url = \"" + mock.baseUrl() + "\", model = slow, max-retries = 0 }\n" + overrides;
    ColloquySettings parsed = TestEngine.settings(settings);
    ChatModel http = new OpenAiChatModel(parsed.llm(), Executors.newVirtualThreadPerTaskExecutor());
    EngineServices services = TestEngine.services(settings, Map.of("slow", http, "broken", http),
        new EmptyKnowledgeBase(), purger);
    sessionId = UUID.randomUUID().toString();
    session = EventSourcedBehaviorTestKit.create(testKit.system(), ChatSession.create(sessionId, services, null));
  }

  private void open() {
    var result = session.<ChatSession.Reply>runCommand(replyTo ->
        new ChatSession.Open("default", "A careful assistant", JsonNodeFactory.instance.objectNode().put("k", "v"), replyTo));
    assertThat(result.reply()).isInstanceOf(ChatSession.SessionReply.class);
  }

  private CommandResultWithReply<ChatSession.Command, ChatSession.Event, SessionState, ChatSession.Reply> start(
      String message, String key, List<String> models, TestProbe<TurnFrame> subscriber) {
    return session.runCommand(replyTo ->
        new ChatSession.StartTurn(message, null, key, models, "trace-" + message.hashCode(), subscriber.getRef(), replyTo));
  }

  private static List<TurnFrame> untilTerminal(TestProbe<TurnFrame> probe) {
    List<TurnFrame> frames = new ArrayList<>();
    TurnFrame frame;
    do {
      frame = probe.expectMessageClass(TurnFrame.class, WAIT);
      frames.add(frame);
    } while (!frame.terminal());
    return frames;
  }

  private static ChatSession.Rejected rejected(ChatSession.Reply reply) {
    assertThat(reply).isInstanceOf(ChatSession.Rejected.class);
    return (ChatSession.Rejected) reply;
  }

  @Test
  void aSessionThatWasNeverOpenedAnswersNotFoundToEveryCommand() {
    newSession("");
    TestProbe<TurnFrame> frames = testKit.createTestProbe();
    assertThat(rejected(session.<ChatSession.Reply>runCommand(ChatSession.Get::new).reply()).code())
        .isEqualTo(ChatSession.SESSION_NOT_FOUND);
    assertThat(rejected(start("hi", null, List.of(), frames).reply()).code()).isEqualTo(ChatSession.SESSION_NOT_FOUND);
    assertThat(rejected(session.<ChatSession.Reply>runCommand(r -> new ChatSession.JoinTurn("t", 0, frames.getRef(), r)).reply()).code())
        .isEqualTo(ChatSession.TURN_NOT_FOUND);
    assertThat(rejected(session.<ChatSession.Reply>runCommand(r -> new ChatSession.CancelTurn("t", r)).reply()).code())
        .isEqualTo(ChatSession.TURN_NOT_FOUND);
    assertThat(rejected(session.<ChatSession.Reply>runCommand(r -> new ChatSession.Close("closed", r)).reply()).code())
        .isEqualTo(ChatSession.SESSION_NOT_FOUND);
    var delete = session.<ChatSession.Reply>runCommand(ChatSession.Delete::new);
    assertThat(rejected(delete.reply()).code()).isEqualTo(ChatSession.SESSION_NOT_FOUND);
    assertThat(delete.hasNoEvents()).isTrue();
  }

  @Test
  void openingTwiceIsRefused() {
    newSession("");
    open();
    var again = session.<ChatSession.Reply>runCommand(r -> new ChatSession.Open("default", null, JsonNodeFactory.instance.objectNode(), r));
    assertThat(rejected(again.reply()).code()).isEqualTo(ChatSession.SESSION_EXISTS);
    assertThat(again.hasNoEvents()).isTrue();
  }

  @Test
  void aTurnStreamsNumberedFramesAndJournalsItsOutcomeOnce() {
    newSession("");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    var result = start("What is the refund policy?", null, List.of(), probe);
    assertThat(result.reply()).isInstanceOf(ChatSession.TurnReply.class);
    assertThat(result.events()).hasSize(2).first().isInstanceOf(ChatSession.SessionRenamed.class);

    List<TurnFrame> frames = untilTerminal(probe);
    assertThat(frames).extracting(TurnFrame::id).containsExactlyElementsOf(
        java.util.stream.LongStream.rangeClosed(1, frames.size()).boxed().toList());
    assertThat(frames.get(0).event()).isInstanceOf(TurnEvent.Started.class);
    assertThat(frames.get(1).event()).isInstanceOf(TurnEvent.Retrieved.class);
    assertThat(frames.getLast().event()).isInstanceOf(TurnEvent.Completed.class);
    String streamed = frames.stream().filter(f -> f.event() instanceof TurnEvent.Token)
        .map(f -> ((TurnEvent.Token) f.event()).text()).reduce("", String::concat);
    assertThat(((TurnEvent.Completed) frames.getLast().event()).text()).isEqualTo(streamed).isNotEmpty();

    SessionState state = session.getState();
    TurnRecord turn = state.turns().getFirst();
    assertThat(turn.status()).isEqualTo(TurnStatus.COMPLETED);
    assertThat(turn.outcome().text()).isEqualTo(streamed);
    assertThat(state.title()).isEqualTo("What is the refund policy?");
    assertThat(state.narrativeState().path("completed_turns").asInt()).isEqualTo(1);
    assertThat(state.view().messages()).extracting(SessionView.MessageView::role).containsExactly("user", "assistant");
  }

  @Test
  void aRepeatedIdempotencyKeyOrTurnIdJoinsTheSameTurnAndReplaysItsFramesExactly() {
    newSession("");
    open();
    TestProbe<TurnFrame> first = testKit.createTestProbe();
    String turnId = ((ChatSession.TurnReply) start("hello", "key-1", List.of(), first).reply()).turnId();
    List<TurnFrame> live = untilTerminal(first);

    TestProbe<TurnFrame> second = testKit.createTestProbe();
    var again = start("hello", "key-1", List.of(), second);
    assertThat(again.hasNoEvents()).isTrue();
    assertThat(((ChatSession.TurnReply) again.reply()).turnId()).isEqualTo(turnId);
    assertThat(((ChatSession.TurnReply) again.reply()).existing()).isTrue();
    assertThat(untilTerminal(second)).isEqualTo(live);

    TestProbe<TurnFrame> third = testKit.createTestProbe();
    var byId = session.<ChatSession.Reply>runCommand(r ->
        new ChatSession.StartTurn("hello", turnId, null, List.of(), "t", third.getRef(), r));
    assertThat(byId.hasNoEvents()).isTrue();
    assertThat(untilTerminal(third)).isEqualTo(live);
    assertThat(session.getState().turns()).hasSize(1);
  }

  @Test
  void joiningAFinishedTurnAfterAnIdDeliversExactlyTheFramesAfterIt() {
    newSession("");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    String turnId = ((ChatSession.TurnReply) start("hello there", null, List.of(), probe).reply()).turnId();
    List<TurnFrame> live = untilTerminal(probe);
    long afterId = live.size() / 2;

    TestProbe<TurnFrame> resumed = testKit.createTestProbe();
    session.<ChatSession.Reply>runCommand(r -> new ChatSession.JoinTurn(turnId, afterId, resumed.getRef(), r));
    assertThat(untilTerminal(resumed)).isEqualTo(live.subList((int) afterId, live.size()));
  }

  @Test
  void badTurnRequestsAreRefusedWithoutEvents() {
    newSession("colloquy.llm.max-models-per-turn = 2");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    var empty = start("  ", null, List.of(), probe);
    assertThat(rejected(empty.reply()).code()).isEqualTo(ChatSession.INVALID_MESSAGE);
    var unknown = start("hi", null, List.of("gpt-9"), probe);
    assertThat(rejected(unknown.reply()).code()).isEqualTo(ChatSession.UNKNOWN_MODEL);
    assertThat(rejected(unknown.reply()).message()).contains("gpt-9");
    var tooMany = start("hi", null, List.of("offline", "slow", "broken"), probe);
    assertThat(rejected(tooMany.reply()).code()).isEqualTo(ChatSession.TOO_MANY_MODELS);
    assertThat(empty.hasNoEvents() && unknown.hasNoEvents() && tooMany.hasNoEvents()).isTrue();
  }

  @Test
  void aMessageWhileATurnRunsIsRejectedNamingTheRunningTurn() {
    newSession("");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    String running = ((ChatSession.TurnReply) start("slow one", null, List.of("slow"), probe).reply()).turnId();
    var second = start("another", null, List.of(), testKit.createTestProbe());
    ChatSession.Rejected busy = rejected(second.reply());
    assertThat(busy.code()).isEqualTo(ChatSession.TURN_IN_PROGRESS);
    assertThat(busy.turnId()).isEqualTo(running);
    assertThat(second.hasNoEvents()).isTrue();
    session.<ChatSession.Reply>runCommand(r -> new ChatSession.CancelTurn(running, r));
    assertThat(untilTerminal(probe).getLast().event()).isInstanceOf(TurnEvent.Cancelled.class);
  }

  @Test
  void withTheEnqueuePolicyASecondMessageRunsAfterTheFirst() {
    newSession("colloquy.session.busy-policy = enqueue");
    open();
    TestProbe<TurnFrame> first = testKit.createTestProbe();
    TestProbe<TurnFrame> second = testKit.createTestProbe();
    mock.reconfigure(mock.settings().withTokens(5));
    try {
      start("first", null, List.of("slow"), first);
      var queued = start("second", null, List.of(), second);
      assertThat(queued.reply()).isInstanceOf(ChatSession.TurnReply.class);
      assertThat(untilTerminal(first).getLast().event()).isInstanceOf(TurnEvent.Completed.class);
      assertThat(untilTerminal(second).getLast().event()).isInstanceOf(TurnEvent.Completed.class);
    } finally {
      mock.reconfigure(mock.settings().withTokens(40));
    }
    assertThat(session.getState().turns()).extracting(TurnRecord::message, TurnRecord::status)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("first", TurnStatus.COMPLETED),
            org.assertj.core.groups.Tuple.tuple("second", TurnStatus.COMPLETED));
  }

  @Test
  void cancellingARunningTurnStopsTheModelCallAndKeepsThePartialText() throws Exception {
    newSession("");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    long cancelledBefore = mock.stats().streamsCancelled();
    String turnId = ((ChatSession.TurnReply) start("slow one", null, List.of("slow"), probe).reply()).turnId();
    TurnFrame token;
    do {
      token = probe.expectMessageClass(TurnFrame.class, WAIT);
    } while (!(token.event() instanceof TurnEvent.Token));
    var cancel = session.<ChatSession.Reply>runCommand(r -> new ChatSession.CancelTurn(turnId, r));
    assertThat(cancel.reply()).isInstanceOf(ChatSession.TurnReply.class);
    TurnFrame terminal = untilTerminal(probe).getLast();
    assertThat(terminal.event()).isEqualTo(new TurnEvent.Cancelled("cancelled"));
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(1, TimeUnit.SECONDS);

    TurnRecord turn = session.getState().turn(turnId).orElseThrow();
    assertThat(turn.status()).isEqualTo(TurnStatus.CANCELLED);
    assertThat(turn.outcome().runs().getFirst().text()).startsWith("tok0 ");
    var again = session.<ChatSession.Reply>runCommand(r -> new ChatSession.CancelTurn(turnId, r));
    assertThat(rejected(again.reply()).code()).isEqualTo(ChatSession.TURN_ENDED);
  }

  @Test
  void twoModelsRunInParallelAndOneFailingDoesNotStopTheOther() {
    newSession("");
    open();
    mock.reconfigure(mock.settings().withTokens(5));
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    List<TurnFrame> frames;
    try {
      start("compare", null, List.of("slow", "broken"), probe);
      frames = untilTerminal(probe);
    } finally {
      mock.reconfigure(mock.settings().withTokens(40));
    }
    assertThat(frames).anyMatch(f -> f.event() instanceof TurnEvent.RunFailed failed && failed.code().equals("MODEL_UNAVAILABLE"));
    assertThat(frames).anyMatch(f -> f.event() instanceof TurnEvent.RunCompleted);
    assertThat(frames.getLast().event()).isInstanceOf(TurnEvent.Completed.class);
    List<RunOutcome> runs = session.getState().turns().getFirst().outcome().runs();
    assertThat(runs).extracting(RunOutcome::model, RunOutcome::status).containsExactly(
        org.assertj.core.groups.Tuple.tuple("slow", RunOutcome.Status.COMPLETED),
        org.assertj.core.groups.Tuple.tuple("broken", RunOutcome.Status.FAILED));
    assertThat(runs.getFirst().usage().completionTokens()).isEqualTo(5);
  }

  @Test
  void aModelThatDoesNotStartInTimeFailsItsRunAndIsCancelledUpstream() throws Exception {
    newSession("colloquy.llm.first-token-timeout = 300ms");
    open();
    // The mock notices a closed connection only when it next writes: after its 2 s to the first token,
    // well before the 6 s its full answer would take.
    mock.reconfigure(mock.settings().withTimeToFirstToken(Duration.ofSeconds(2)));
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    long cancelledBefore = mock.stats().streamsCancelled();
    long completedBefore = mock.stats().streamsCompleted();
    List<TurnFrame> frames;
    try {
      start("hello", null, List.of("slow"), probe);
      frames = untilTerminal(probe);
      mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(4, TimeUnit.SECONDS);
      assertThat(mock.stats().streamsCompleted()).isEqualTo(completedBefore);
    } finally {
      mock.reconfigure(mock.settings().withTimeToFirstToken(Duration.ofMillis(20)));
    }
    assertThat(frames).anyMatch(f -> f.event() instanceof TurnEvent.RunFailed failed
        && failed.code().equals("MODEL_TIMEOUT"));
    assertThat(frames.getLast().event()).isInstanceOf(TurnEvent.Failed.class);
  }

  @Test
  void aTurnWhoseEveryRunFailsEndsFailed() {
    newSession("");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    start("hello", null, List.of("broken"), probe);
    TurnFrame terminal = untilTerminal(probe).getLast();
    assertThat(terminal.event()).isInstanceOf(TurnEvent.Failed.class);
    assertThat(((TurnEvent.Failed) terminal.event()).code()).isEqualTo("ALL_RUNS_FAILED");
    assertThat(session.getState().turns().getFirst().status()).isEqualTo(TurnStatus.FAILED);
  }

  @Test
  void aClientThatLeavesAndDoesNotComeBackWithinTheGraceCancelsTheTurn() throws Exception {
    newSession("colloquy.session.disconnect-grace = 500ms");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    long cancelledBefore = mock.stats().streamsCancelled();
    String turnId = ((ChatSession.TurnReply) start("slow", null, List.of("slow"), probe).reply()).turnId();
    probe.expectMessageClass(TurnFrame.class, WAIT);
    session.runCommand(new ChatSession.LeaveTurn(probe.getRef()));
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    TestProbe<TurnFrame> late = testKit.createTestProbe();
    late.awaitAssert(WAIT, () -> {
      assertThat(session.getState().turn(turnId).orElseThrow().status()).isEqualTo(TurnStatus.CANCELLED);
      return null;
    });
    session.<ChatSession.Reply>runCommand(r -> new ChatSession.JoinTurn(turnId, 0, late.getRef(), r));
    assertThat(untilTerminal(late).getLast().event()).isEqualTo(new TurnEvent.Cancelled("disconnected"));
  }

  @Test
  void aClientThatComesBackWithinTheGraceResumesWithoutGapOrDuplicate() {
    newSession("colloquy.session.disconnect-grace = 10s");
    open();
    mock.reconfigure(mock.settings().withTokens(10));
    try {
      TestProbe<TurnFrame> probe = testKit.createTestProbe();
      String turnId = ((ChatSession.TurnReply) start("slow", null, List.of("slow"), probe).reply()).turnId();
      List<TurnFrame> seen = new ArrayList<>();
      while (seen.size() < 4) {
        seen.add(probe.expectMessageClass(TurnFrame.class, WAIT));
      }
      session.runCommand(new ChatSession.LeaveTurn(probe.getRef()));
      TestProbe<TurnFrame> resumed = testKit.createTestProbe();
      long lastSeen = seen.getLast().id();
      session.<ChatSession.Reply>runCommand(r -> new ChatSession.JoinTurn(turnId, lastSeen, resumed.getRef(), r));
      List<TurnFrame> rest = untilTerminal(resumed);
      assertThat(rest.getFirst().id()).isEqualTo(lastSeen + 1);
      assertThat(rest.getLast().event()).isInstanceOf(TurnEvent.Completed.class);
      for (int i = 1; i < rest.size(); i++) {
        assertThat(rest.get(i).id()).isEqualTo(rest.get(i - 1).id() + 1);
      }
    } finally {
      mock.reconfigure(mock.settings().withTokens(40));
    }
  }

  @Test
  void closingRecordsASummaryRefusesNewTurnsAndStillServesHistory() {
    newSession("");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    start("hello", null, List.of(), probe);
    untilTerminal(probe);
    var close = session.<ChatSession.Reply>runCommand(r -> new ChatSession.Close("closed", r));
    assertThat(close.event()).isInstanceOf(ChatSession.SessionClosed.class);
    SessionSummary summary = ((ChatSession.SessionClosed) close.event()).summary();
    assertThat(summary.turns()).isEqualTo(1);
    assertThat(summary.usageByModel()).containsKey("offline/offline");
    assertThat(summary.usageByModel().get("offline/offline").completionTokens()).isPositive();

    assertThat(rejected(start("more", null, List.of(), probe).reply()).code()).isEqualTo(ChatSession.SESSION_CLOSED);
    var view = (ChatSession.SessionReply) session.<ChatSession.Reply>runCommand(ChatSession.Get::new).reply();
    assertThat(view.session().status()).isEqualTo(SessionStatus.CLOSED);
    assertThat(view.session().messages()).hasSize(2);
    var again = session.<ChatSession.Reply>runCommand(r -> new ChatSession.Close("closed", r));
    assertThat(again.hasNoEvents()).isTrue();
    assertThat(again.reply()).isInstanceOf(ChatSession.SessionReply.class);
  }

  @Test
  void closingWhileATurnRunsCancelsItFirst() {
    newSession("");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    start("slow", null, List.of("slow"), probe);
    TestProbe<ChatSession.Reply> closer = testKit.createTestProbe();
    session.runCommand(new ChatSession.Close("closed", closer.getRef()));
    assertThat(untilTerminal(probe).getLast().event()).isEqualTo(new TurnEvent.Cancelled("session_closed"));
    ChatSession.Reply reply = closer.expectMessageClass(ChatSession.Reply.class, WAIT);
    assertThat(((ChatSession.SessionReply) reply).session().status()).isEqualTo(SessionStatus.CLOSED);
    assertThat(session.getState().turns().getFirst().status()).isEqualTo(TurnStatus.CANCELLED);
  }

  @Test
  void deletingPurgesTheJournalAndTheIdIsNotReused() {
    newSession("");
    open();
    var delete = session.<ChatSession.Reply>runCommand(ChatSession.Delete::new);
    assertThat(delete.reply()).isInstanceOf(ChatSession.Done.class);
    assertThat(delete.event()).isInstanceOf(ChatSession.SessionDeleted.class);
    assertThat(purger.purged).containsExactly(ChatSession.persistenceId(sessionId).id() + "<2");
    assertThat(rejected(session.<ChatSession.Reply>runCommand(ChatSession.Get::new).reply()).code())
        .isEqualTo(ChatSession.SESSION_NOT_FOUND);
    var reopen = session.<ChatSession.Reply>runCommand(r -> new ChatSession.Open("default", null, JsonNodeFactory.instance.objectNode(), r));
    assertThat(rejected(reopen.reply()).code()).isEqualTo(ChatSession.SESSION_EXISTS);
  }

  @Test
  void aTurnInterruptedByACrashIsRecordedAsFailedOnRecovery() {
    newSession("");
    open();
    TestProbe<TurnFrame> probe = testKit.createTestProbe();
    String turnId = ((ChatSession.TurnReply) start("slow", null, List.of("slow"), probe).reply()).turnId();
    probe.expectMessageClass(TurnFrame.class, WAIT);
    session.restart();
    probe.awaitAssert(WAIT, () -> {
      assertThat(session.getState().turn(turnId).orElseThrow().status()).isEqualTo(TurnStatus.FAILED);
      return null;
    });
    TurnRecord turn = session.getState().turn(turnId).orElseThrow();
    assertThat(turn.endCode()).isEqualTo(ChatSession.INTERRUPTED);
    TestProbe<TurnFrame> resumed = testKit.createTestProbe();
    session.<ChatSession.Reply>runCommand(r -> new ChatSession.JoinTurn(turnId, 7, resumed.getRef(), r));
    TurnFrame terminal = resumed.expectMessageClass(TurnFrame.class, WAIT);
    assertThat(terminal.id()).isEqualTo(8);
    assertThat(terminal.event()).isInstanceOf(TurnEvent.Failed.class);
    assertThat(((TurnEvent.Failed) terminal.event()).code()).isEqualTo(ChatSession.INTERRUPTED);
  }
}
