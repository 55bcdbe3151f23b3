package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnStatus;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
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
  private String sessionId;

  @BeforeAll
  static void startKit() {
    // A stream nobody subscribes to gives up after 1 s here instead of the configured 10 s.
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config()
        .withFallback(ConfigFactory.parseString("pekko.stream.materializer.stream-ref.subscription-timeout = 1s"))
        .withFallback(ConfigFactory.load()));
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
    String settings = "colloquy.llm { base-url = \"" + mock.baseUrl() + "\", model = slow, max-retries = 0 }\n" + overrides;
    ColloquySettings parsed = TestEngine.settings(settings);
    ChatModel http = new OpenAiChatModel(parsed.llm(), Executors.newVirtualThreadPerTaskExecutor());
    EngineServices services = TestEngine.services(settings, Map.of("slow", http, "broken", http),
        new EmptyKnowledgeBase());
    sessionId = UUID.randomUUID().toString();
    session = EventSourcedBehaviorTestKit.create(testKit.system(), ChatSession.create(sessionId, services, null));
  }

  private void open() {
    var result = session.<ChatSession.SessionAnswer>runCommand(replyTo ->
        new ChatSession.Open("default", null, "A careful assistant", JsonNodeFactory.instance.objectNode().put("k", "v"), replyTo));
    assertThat(result.reply()).isInstanceOf(ChatSession.SessionReply.class);
  }

  private CommandResultWithReply<ChatSession.Command, ChatSession.Event, SessionState, ChatSession.TurnAnswer> start(
      String message, String key, List<String> models) {
    return session.runCommand(replyTo ->
        new ChatSession.StartTurn(message, null, key, models, "trace-" + message.hashCode(), replyTo));
  }

  private static TurnStreamProbe read(CommandResultWithReply<?, ?, ?, ChatSession.TurnAnswer> result) {
    return TurnStreamProbe.read(testKit, result.reply());
  }

  private TurnStreamProbe join(String turnId, long afterId) {
    return read(session.<ChatSession.TurnAnswer>runCommand(r -> new ChatSession.JoinTurn(turnId, afterId, r)));
  }

  private static String turnId(CommandResultWithReply<?, ?, ?, ChatSession.TurnAnswer> result) {
    return ((ChatSession.TurnReply) result.reply()).turnId();
  }

  private static ChatSession.Rejected rejected(Object reply) {
    assertThat(reply).isInstanceOf(ChatSession.Rejected.class);
    return (ChatSession.Rejected) reply;
  }

  @Test
  void aSessionRefusesTurnsBeyondItsLimitAndSaysWhy() {
    newSession("colloquy.session.max-turns = 2");
    open();
    read(start("one", null, List.of("offline"))).untilTerminal();
    read(start("two", null, List.of("offline"))).untilTerminal();

    var third = start("three", null, List.of("offline"));

    ChatSession.Rejected refused = rejected(third.reply());
    assertThat(refused.code()).isEqualTo(ChatSession.TURN_LIMIT_REACHED);
    assertThat(refused.message()).contains("limit of 2 turns");
    assertThat(third.hasNoEvents()).isTrue();
    assertThat(session.getState().totals().turns()).isEqualTo(2);
  }

  @Test
  void aSessionThatWasNeverOpenedAnswersNotFoundToEveryCommand() {
    newSession("");
    assertThat(rejected(session.<ChatSession.SessionAnswer>runCommand(ChatSession.Get::new).reply()).code())
        .isEqualTo(ChatSession.SESSION_NOT_FOUND);
    assertThat(rejected(start("hi", null, List.of()).reply()).code()).isEqualTo(ChatSession.SESSION_NOT_FOUND);
    assertThat(rejected(session.<ChatSession.TurnAnswer>runCommand(r -> new ChatSession.JoinTurn("t", 0, r)).reply()).code())
        .isEqualTo(ChatSession.TURN_NOT_FOUND);
    assertThat(rejected(session.<ChatSession.TurnAnswer>runCommand(r -> new ChatSession.CancelTurn("t", r)).reply()).code())
        .isEqualTo(ChatSession.TURN_NOT_FOUND);
    assertThat(rejected(session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Close("closed", r)).reply()).code())
        .isEqualTo(ChatSession.SESSION_NOT_FOUND);
    var delete = session.<ChatSession.DeleteAnswer>runCommand(ChatSession.Delete::new);
    assertThat(rejected(delete.reply()).code()).isEqualTo(ChatSession.SESSION_NOT_FOUND);
    assertThat(delete.hasNoEvents()).isTrue();
  }

  @Test
  void aSessionOpenedFromAConversationSendsItBeforeItsOwnTurnsAndKeepsItAcrossRecovery() {
    newSession("");
    List<ChatMessage> earlier = List.of(ChatMessage.user("My name is Ada."), ChatMessage.assistant("Hello, Ada."));
    var opened = session.<ChatSession.SessionAnswer>runCommand(replyTo -> new ChatSession.Open("default", null,
        "Answer in one line.", JsonNodeFactory.instance.objectNode(), null, earlier, replyTo));
    assertThat(opened.reply()).isInstanceOf(ChatSession.SessionReply.class);

    List<TurnFrame> frames = read(start("What is my name?", null, List.of("slow"))).untilTerminal();

    assertThat(frames.getLast().event()).isInstanceOf(TurnEnding.Completed.class);
    JsonNode asked = mock.stats().chatRequests().getLast();
    List<String> contents = asked.path("messages").findValuesAsText("content");
    assertThat(contents).containsSubsequence("My name is Ada.", "Hello, Ada.", "What is my name?")
        .endsWith("What is my name?");
    // The persona a client sends is data for the model, never the system message's instructions.
    assertThat(contents.getFirst()).doesNotContain("Answer in one line.");
    assertThat(contents.get(contents.size() - 2)).contains("<session_persona>\nAnswer in one line.\n</session_persona>");
    session.restart();
    assertThat(session.getState().history(20)).startsWith(earlier.toArray(ChatMessage[]::new)).hasSize(4);
  }

  @Test
  void openingTwiceIsRefused() {
    newSession("");
    open();
    var again = session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Open("default", null, null, JsonNodeFactory.instance.objectNode(), r));
    assertThat(rejected(again.reply()).code()).isEqualTo(ChatSession.SESSION_EXISTS);
    assertThat(again.hasNoEvents()).isTrue();
  }

  @Test
  void aTurnStreamsNumberedFramesAndJournalsItsOutcomeOnce() {
    newSession("");
    open();
    var result = start("What is the refund policy?", null, List.of());
    // The offline turn may finish before the test kit collects the command's events, so only the start is fixed.
    assertThat(result.events()).extracting(Object::getClass)
        .startsWith(ChatSession.SessionRenamed.class, ChatSession.TurnAccepted.class);

    List<TurnFrame> frames = read(result).untilTerminal();
    assertThat(frames).extracting(TurnFrame::id).containsExactlyElementsOf(
        java.util.stream.LongStream.rangeClosed(1, frames.size()).boxed().toList());
    assertThat(frames.get(0).event()).isInstanceOf(StreamEvent.Started.class);
    assertThat(frames.get(1).event()).isEqualTo(new StreamEvent.IntentRouted(Intent.DOMAIN_QUERY));
    assertThat(frames.get(2).event()).isInstanceOf(StreamEvent.Retrieved.class);
    assertThat(frames.getLast().event()).isInstanceOf(TurnEnding.Completed.class);
    String streamed = frames.stream().filter(f -> f.event() instanceof StreamEvent.Token)
        .map(f -> ((StreamEvent.Token) f.event()).text()).reduce("", String::concat);
    assertThat(((TurnEnding.Completed) frames.getLast().event()).text()).isEqualTo(streamed).isNotEmpty();

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
    var first = start("hello", "key-1", List.of());
    String turnId = turnId(first);
    List<TurnFrame> live = read(first).untilTerminal();

    var again = start("hello", "key-1", List.of());
    assertThat(again.hasNoEvents()).isTrue();
    assertThat(turnId(again)).isEqualTo(turnId);
    assertThat(((ChatSession.TurnReply) again.reply()).existing()).isTrue();
    assertThat(read(again).untilTerminal()).isEqualTo(live);

    var byId = session.<ChatSession.TurnAnswer>runCommand(r ->
        new ChatSession.StartTurn("hello", turnId, null, List.of(), "t", r));
    assertThat(byId.hasNoEvents()).isTrue();
    assertThat(read(byId).untilTerminal()).isEqualTo(live);
    assertThat(session.getState().turns()).hasSize(1);
  }

  @Test
  void joiningAFinishedTurnAfterAnIdDeliversExactlyTheFramesAfterIt() {
    newSession("");
    open();
    var started = start("hello there", null, List.of());
    String turnId = turnId(started);
    List<TurnFrame> live = read(started).untilTerminal();
    long afterId = live.size() / 2;

    assertThat(join(turnId, afterId).untilTerminal()).isEqualTo(live.subList((int) afterId, live.size()));

    var seenAll = session.<ChatSession.TurnAnswer>runCommand(r -> new ChatSession.JoinTurn(turnId, live.getLast().id(), r));
    ChatSession.TurnReply nothingLeft = (ChatSession.TurnReply) seenAll.reply();
    assertThat(nothingLeft.ended()).isTrue();
    assertThat(nothingLeft.replayed()).isZero();
    assertThat(nothingLeft.nothingFollows()).isTrue();
  }

  @Test
  void badTurnRequestsAreRefusedWithoutEvents() {
    newSession("colloquy.llm.max-models-per-turn = 2");
    open();
    var empty = start("  ", null, List.of());
    assertThat(rejected(empty.reply()).code()).isEqualTo("EMPTY_MESSAGE");
    var unknown = start("hi", null, List.of("gpt-9"));
    assertThat(rejected(unknown.reply()).code()).isEqualTo(ChatSession.UNKNOWN_MODEL);
    assertThat(rejected(unknown.reply()).message()).contains("gpt-9");
    var tooMany = start("hi", null, List.of("offline", "slow", "broken"));
    assertThat(rejected(tooMany.reply()).code()).isEqualTo(ChatSession.TOO_MANY_MODELS);
    assertThat(empty.hasNoEvents() && unknown.hasNoEvents() && tooMany.hasNoEvents()).isTrue();
  }

  @Test
  void aMessageWhileATurnRunsIsRejectedNamingTheRunningTurn() {
    newSession("");
    open();
    var first = start("slow one", null, List.of("slow"));
    TurnStreamProbe stream = read(first);
    String running = turnId(first);
    var second = start("another", null, List.of());
    ChatSession.Rejected busy = rejected(second.reply());
    assertThat(busy.code()).isEqualTo(ChatSession.TURN_IN_PROGRESS);
    assertThat(busy.turnId()).isEqualTo(running);
    assertThat(second.hasNoEvents()).isTrue();
    session.<ChatSession.TurnAnswer>runCommand(r -> new ChatSession.CancelTurn(running, r));
    assertThat(stream.untilTerminal().getLast().event()).isInstanceOf(TurnEnding.Cancelled.class);
  }

  @Test
  void withTheEnqueuePolicyASecondMessageRunsAfterTheFirst() {
    newSession("colloquy.session.busy-policy = enqueue");
    open();
    mock.reconfigure(mock.settings().withTokens(5));
    try {
      TurnStreamProbe first = read(start("first", null, List.of("slow")));
      var queued = start("second", null, List.of());
      TurnStreamProbe second = read(queued);
      TurnStreamProbe joinedWhileQueued = join(turnId(queued), 0);
      assertThat(first.untilTerminal().getLast().event()).isInstanceOf(TurnEnding.Completed.class);
      List<TurnFrame> secondFrames = second.untilTerminal();
      assertThat(secondFrames.getLast().event()).isInstanceOf(TurnEnding.Completed.class);
      assertThat(joinedWhileQueued.untilTerminal()).isEqualTo(secondFrames);
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
    long cancelledBefore = mock.stats().streamsCancelled();
    var started = start("slow one", null, List.of("slow"));
    TurnStreamProbe stream = read(started);
    String turnId = turnId(started);
    TurnFrame token;
    do {
      token = stream.next();
    } while (!(token.event() instanceof StreamEvent.Token));
    var cancel = session.<ChatSession.TurnAnswer>runCommand(r -> new ChatSession.CancelTurn(turnId, r));
    assertThat(cancel.reply()).isInstanceOf(ChatSession.TurnReply.class);
    TurnFrame terminal = stream.untilTerminal().getLast();
    assertThat(terminal.event()).isEqualTo(new TurnEnding.Cancelled("cancelled"));
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(1, TimeUnit.SECONDS);

    TurnRecord turn = session.getState().turn(turnId).orElseThrow();
    assertThat(turn.status()).isEqualTo(TurnStatus.CANCELLED);
    assertThat(turn.outcome().runs().getFirst().text()).startsWith("tok0 ");
    var again = session.<ChatSession.TurnAnswer>runCommand(r -> new ChatSession.CancelTurn(turnId, r));
    assertThat(rejected(again.reply()).code()).isEqualTo(ChatSession.TURN_ENDED);
  }

  @Test
  void twoModelsRunInParallelAndOneFailingDoesNotStopTheOther() {
    newSession("");
    open();
    mock.reconfigure(mock.settings().withTokens(5));
    List<TurnFrame> frames;
    try {
      frames = read(start("compare", null, List.of("slow", "broken"))).untilTerminal();
    } finally {
      mock.reconfigure(mock.settings().withTokens(40));
    }
    assertThat(frames).anyMatch(f -> f.event() instanceof StreamEvent.RunFailed failed && failed.code().equals("MODEL_UNAVAILABLE"));
    assertThat(frames).anyMatch(f -> f.event() instanceof StreamEvent.RunCompleted);
    assertThat(frames.getLast().event()).isInstanceOf(TurnEnding.Completed.class);
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
    long cancelledBefore = mock.stats().streamsCancelled();
    long completedBefore = mock.stats().streamsCompleted();
    List<TurnFrame> frames;
    try {
      frames = read(start("hello", null, List.of("slow"))).untilTerminal();
      mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(4, TimeUnit.SECONDS);
      assertThat(mock.stats().streamsCompleted()).isEqualTo(completedBefore);
    } finally {
      mock.reconfigure(mock.settings().withTimeToFirstToken(Duration.ofMillis(20)));
    }
    assertThat(frames).anyMatch(f -> f.event() instanceof StreamEvent.RunFailed failed
        && failed.code().equals("MODEL_TIMEOUT"));
    assertThat(frames.getLast().event()).isInstanceOf(TurnEnding.Failed.class);
  }

  @Test
  void aTurnWhoseEveryRunFailsEndsFailed() {
    newSession("");
    open();
    TurnFrame terminal = read(start("hello", null, List.of("broken"))).untilTerminal().getLast();
    assertThat(terminal.event()).isInstanceOf(TurnEnding.Failed.class);
    assertThat(((TurnEnding.Failed) terminal.event()).code()).isEqualTo("ALL_RUNS_FAILED");
    assertThat(session.getState().turns().getFirst().status()).isEqualTo(TurnStatus.FAILED);
  }

  @Test
  void aClientThatLeavesAndDoesNotComeBackWithinTheGraceCancelsTheTurn() throws Exception {
    newSession("colloquy.session.disconnect-grace = 500ms");
    open();
    long cancelledBefore = mock.stats().streamsCancelled();
    var started = start("slow", null, List.of("slow"));
    TurnStreamProbe stream = read(started);
    String turnId = turnId(started);
    stream.next();
    stream.leave();
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    testKit.createTestProbe().awaitAssert(WAIT, () -> {
      assertThat(session.getState().turn(turnId).orElseThrow().status()).isEqualTo(TurnStatus.CANCELLED);
      return null;
    });
    assertThat(join(turnId, 0).untilTerminal().getLast().event()).isEqualTo(new TurnEnding.Cancelled("disconnected"));
  }

  /** As when the HTTP node's ask timed out: the reply, and the stream in it, reached nobody. */
  @Test
  void aTurnWhoseStreamIsNeverReadIsLeftToItsGraceOnceTheSubscriptionTimesOut() throws Exception {
    newSession("colloquy.session.disconnect-grace = 500ms");
    open();
    long cancelledBefore = mock.stats().streamsCancelled();
    String turnId = turnId(start("slow", null, List.of("slow")));
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    testKit.createTestProbe().awaitAssert(WAIT, () -> {
      assertThat(session.getState().turn(turnId).orElseThrow().status()).isEqualTo(TurnStatus.CANCELLED);
      return null;
    });
    assertThat(join(turnId, 0).untilTerminal().getLast().event()).isEqualTo(new TurnEnding.Cancelled("disconnected"));
  }

  @Test
  void aClientThatComesBackWithinTheGraceResumesWithoutGapOrDuplicate() {
    newSession("colloquy.session.disconnect-grace = 10s");
    open();
    mock.reconfigure(mock.settings().withTokens(10));
    try {
      var started = start("slow", null, List.of("slow"));
      TurnStreamProbe stream = read(started);
      String turnId = turnId(started);
      List<TurnFrame> seen = new ArrayList<>();
      while (seen.size() < 4) {
        seen.add(stream.next());
      }
      stream.leave();
      long lastSeen = seen.getLast().id();
      List<TurnFrame> rest = join(turnId, lastSeen).untilTerminal();
      assertThat(rest.getFirst().id()).isEqualTo(lastSeen + 1);
      assertThat(rest.getLast().event()).isInstanceOf(TurnEnding.Completed.class);
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
    read(start("hello", null, List.of())).untilTerminal();
    var close = session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Close("closed", r));
    assertThat(close.event()).isInstanceOf(ChatSession.SessionClosed.class);
    SessionSummary summary = ((ChatSession.SessionClosed) close.event()).summary();
    assertThat(summary.turns()).isEqualTo(1);
    assertThat(summary.usageByModel()).containsKey("offline/offline");
    assertThat(summary.usageByModel().get("offline/offline").completionTokens()).isPositive();

    assertThat(rejected(start("more", null, List.of()).reply()).code()).isEqualTo(ChatSession.SESSION_CLOSED);
    var view = (ChatSession.SessionReply) session.<ChatSession.SessionAnswer>runCommand(ChatSession.Get::new).reply();
    assertThat(view.session().status()).isEqualTo(SessionStatus.CLOSED);
    assertThat(view.session().messages()).hasSize(2);
    var again = session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Close("closed", r));
    assertThat(again.hasNoEvents()).isTrue();
    assertThat(again.reply()).isInstanceOf(ChatSession.SessionReply.class);
  }

  @Test
  void aSessionClosedForIdlenessReopensForATurnThatAsksAndEachStretchIsBilledOnItsOwn() {
    newSession("");
    open();
    read(start("hello", null, List.of())).untilTerminal();
    var idle = session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.CloseIfIdle(Duration.ZERO, r));
    SessionSummary first = ((ChatSession.SessionClosed) idle.event()).summary();
    assertThat(((ChatSession.SessionClosed) idle.event()).reason()).isEqualTo("idle");
    assertThat(rejected(start("a canonical turn", null, List.of()).reply()).code())
        .as("a caller that does not ask for it still finds the session closed").isEqualTo(ChatSession.SESSION_CLOSED);

    var again = session.<ChatSession.TurnAnswer>runCommand(r ->
        new ChatSession.StartTurn("back again", null, null, List.of(), "trace", true, r));
    assertThat(again.events().getFirst()).isInstanceOf(ChatSession.SessionReopened.class);
    var reopened = (ChatSession.SessionReopened) again.events().getFirst();
    assertThat(reopened.turnId()).isEqualTo(turnId(again));
    assertThat(read(again).untilTerminal().getLast().event()).isInstanceOf(TurnEnding.Completed.class);
    assertThat(session.getState().status()).isEqualTo(SessionStatus.OPEN);
    assertThat(session.getState().turns()).extracting(TurnRecord::ordinal).containsExactly(1, 2);

    var close = session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Close("closed", r));
    SessionSummary second = ((ChatSession.SessionClosed) close.event()).summary();
    var secondRun = session.getState().turns().getLast().outcome().runs().getFirst().usage();
    assertThat(second.turns()).as("the second stretch's turns").isEqualTo(1);
    assertThat(second.completedTurns()).isEqualTo(1);
    assertThat(second.usageByModel().get("offline/offline")).isEqualTo(secondRun);
    assertThat(second.openedAt()).isEqualTo(reopened.at());
    assertThat(second.durationMs()).isEqualTo(Duration.between(reopened.at(), second.closedAt()).toMillis());
    assertThat(first.turns() + second.turns()).isEqualTo(2);

    assertThat(rejected(session.<ChatSession.TurnAnswer>runCommand(r ->
            new ChatSession.StartTurn("and again", null, null, List.of(), "trace", true, r)).reply()).code())
        .as("a session its caller closed stays closed").isEqualTo(ChatSession.SESSION_CLOSED);
    session.restart();
    assertThat(session.getState().summarize(second.closedAt())).isEqualTo(second);
  }

  @Test
  void closingWhileATurnRunsCancelsItFirst() {
    newSession("");
    open();
    TurnStreamProbe stream = read(start("slow", null, List.of("slow")));
    TestProbe<ChatSession.SessionAnswer> closer = testKit.createTestProbe();
    session.runCommand(new ChatSession.Close("closed", closer.getRef()));
    assertThat(stream.untilTerminal().getLast().event()).isEqualTo(new TurnEnding.Cancelled("session_closed"));
    ChatSession.SessionAnswer reply = closer.expectMessageClass(ChatSession.SessionAnswer.class, WAIT);
    assertThat(((ChatSession.SessionReply) reply).session().status()).isEqualTo(SessionStatus.CLOSED);
    assertThat(session.getState().turns().getFirst().status()).isEqualTo(TurnStatus.CANCELLED);
  }

  @Test
  void aDeletedSessionsIdIsNotReused() {
    newSession("");
    open();
    var delete = session.<ChatSession.DeleteAnswer>runCommand(ChatSession.Delete::new);
    assertThat(delete.reply()).isInstanceOf(ChatSession.Done.class);
    assertThat(delete.event()).isInstanceOf(ChatSession.SessionDeleted.class);
    assertThat(rejected(session.<ChatSession.SessionAnswer>runCommand(ChatSession.Get::new).reply()).code())
        .isEqualTo(ChatSession.SESSION_NOT_FOUND);
    var reopen = session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Open("default", null, null, JsonNodeFactory.instance.objectNode(), r));
    assertThat(rejected(reopen.reply()).code()).isEqualTo(ChatSession.SESSION_EXISTS);
  }

  @Test
  void aTurnInterruptedByACrashIsRecordedAsFailedOnRecovery() {
    newSession("");
    open();
    var started = start("slow", null, List.of("slow"));
    read(started).next();
    String turnId = turnId(started);
    session.restart();
    testKit.createTestProbe().awaitAssert(WAIT, () -> {
      assertThat(session.getState().turn(turnId).orElseThrow().status()).isEqualTo(TurnStatus.FAILED);
      return null;
    });
    TurnRecord turn = session.getState().turn(turnId).orElseThrow();
    assertThat(turn.endCode()).isEqualTo(ChatSession.INTERRUPTED);
    TurnFrame terminal = join(turnId, 7).next();
    assertThat(terminal.id()).isEqualTo(TurnFrame.LOST_LAYOUT_TERMINAL_ID);
    assertThat(terminal.event()).isInstanceOf(TurnEnding.Failed.class);
    assertThat(((TurnEnding.Failed) terminal.event()).code()).isEqualTo(ChatSession.INTERRUPTED);
    var afterTheEnd = session.<ChatSession.TurnAnswer>runCommand(r ->
        new ChatSession.JoinTurn(turnId, TurnFrame.LOST_LAYOUT_TERMINAL_ID, r)).reply();
    assertThat(((ChatSession.TurnReply) afterTheEnd).nothingFollows())
        .as("a client resuming after the terminal frame is told nothing follows, so it stops reconnecting").isTrue();
  }

  @Test
  void aNewTurnRightAfterACrashIsNotRefusedBecauseOfTheTurnTheCrashCutShort() {
    newSession("");
    open();
    var started = start("slow", null, List.of("slow"));
    read(started).next();
    String cut = turnId(started);
    session.restart();

    var next = start("hello again", null, List.of());

    assertThat(next.reply()).isInstanceOf(ChatSession.TurnReply.class);
    assertThat(turnId(next)).isNotEqualTo(cut);
    assertThat(read(next).untilTerminal().getLast().event()).isInstanceOf(TurnEnding.Completed.class);
    assertThat(session.getState().turn(cut).orElseThrow().endCode()).isEqualTo(ChatSession.INTERRUPTED);
  }
}
