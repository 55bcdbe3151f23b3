package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnStatus;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Sharding stops a session with its stop message when it passivates or when its shard moves to another
 * node (a rebalance after a node joined). A turn running then is not cut short: it streams to its end
 * and is journaled as completed, and only then does the session stop; meanwhile it takes no new turn.
 */
class SessionStopTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static ActorTestKit testKit;
  private static MockLlmServer mock;
  private static EngineServices services;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
    mock = MockLlmServer.start(MockLlmSettings.defaults(), "127.0.0.1", 0);
    String settings = "colloquy.llm { base-url = \"" + mock.baseUrl() + "\", model = slow, max-retries = 0 }";
    ColloquySettings parsed = TestEngine.settings(settings);
    ChatModel http = new OpenAiChatModel(parsed.llm(), Executors.newVirtualThreadPerTaskExecutor());
    services = TestEngine.services(settings, Map.of("slow", http), new EmptyKnowledgeBase());
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
    mock.close();
  }

  private static ActorRef<ChatSession.Command> spawnOpened(String sessionId) {
    ActorRef<ChatSession.Command> session = testKit.spawn(ChatSession.create(sessionId, services, null));
    TestProbe<ChatSession.SessionAnswer> opened = testKit.createTestProbe();
    session.tell(new ChatSession.Open("default", null, null, JsonNodeFactory.instance.objectNode(), opened.getRef()));
    opened.expectMessageClass(ChatSession.SessionReply.class, WAIT);
    return session;
  }

  private static ChatSession.TurnAnswer startTurn(ActorRef<ChatSession.Command> session, String message) {
    TestProbe<ChatSession.TurnAnswer> reply = testKit.createTestProbe();
    session.tell(new ChatSession.StartTurn(message, null, null, List.of("slow"), "trace", reply.getRef()));
    return reply.expectMessageClass(ChatSession.TurnAnswer.class, WAIT);
  }

  /**
   * Repeated: the session and its turn's supervisor race at the turn's end (the session may stop
   * before the supervisor has sent the terminal frame), and one run loses that race only sometimes.
   */
  @RepeatedTest(10)
  void aTurnRunningWhenShardingStopsTheSessionEndsCompletedBeforeTheSessionStops() {
    mock.reconfigure(MockLlmSettings.defaults().withTokens(30).withDelays(Duration.ofMillis(5), Duration.ofMillis(10)));
    String sessionId = UUID.randomUUID().toString();
    ActorRef<ChatSession.Command> session = spawnOpened(sessionId);
    ChatSession.TurnAnswer started = startTurn(session, "a long answer, please");
    TurnStreamProbe stream = TurnStreamProbe.read(testKit, started);
    TurnFrame frame;
    do {
      frame = stream.next(WAIT);
    } while (!(frame.event() instanceof StreamEvent.Token));
    TestProbe<Object> watcher = testKit.createTestProbe();

    session.tell(ChatSession.StopWhenIdle.INSTANCE);

    assertThat(startTurn(session, "one more")).isEqualTo(new ChatSession.Rejected(ChatSession.SHUTTING_DOWN,
        "This session is moving to another node; try again in a moment", null));
    List<TurnFrame> rest = stream.untilTerminal();
    assertThat(rest.getLast().event()).isInstanceOf(TurnEnding.Completed.class);
    assertThat(rest.stream().filter(seen -> seen.event() instanceof StreamEvent.Token).count())
        .as("every token after the first streamed").isEqualTo(29);
    watcher.expectTerminated(session, WAIT);

    ActorRef<ChatSession.Command> recovered = testKit.spawn(ChatSession.create(sessionId, services, null));
    TestProbe<ChatSession.SessionAnswer> view = testKit.createTestProbe();
    recovered.tell(new ChatSession.Get(view.getRef()));
    SessionView seen = view.expectMessageClass(ChatSession.SessionReply.class, WAIT).session();
    assertThat(seen.turns()).singleElement()
        .satisfies(turn -> assertThat(turn.status()).isEqualTo(TurnStatus.COMPLETED));
    assertThat(seen.runningTurnId()).isNull();
  }

  @Test
  void aSessionWithNoTurnRunningStopsAtOnce() {
    ActorRef<ChatSession.Command> session = spawnOpened(UUID.randomUUID().toString());
    TestProbe<Object> watcher = testKit.createTestProbe();

    session.tell(ChatSession.StopWhenIdle.INSTANCE);

    watcher.expectTerminated(session, Duration.ofSeconds(5));
  }
}
