package dev.colloquy.engine.session;

import dev.colloquy.engine.domain.TurnStatus;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
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
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node that drains: its sessions refuse new turns, a turn that ends within the deadline ends as
 * usual, and one that does not is interrupted, journaled as failed with INTERRUPTED and told to its client.
 */
class TurnDrainTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static ActorTestKit testKit;
  private static MockLlmServer mock;

  private EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> session;
  private EngineServices services;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
    mock = MockLlmServer.start(MockLlmSettings.defaults(), "127.0.0.1", 0);
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
    mock.close();
  }

  @AfterEach
  void clear() {
    session.clear();
  }

  private void openSession() {
    String settings = "colloquy.llm { base-url = \"" + mock.baseUrl() + "\", model = slow, max-retries = 0 }";
    ColloquySettings parsed = TestEngine.settings(settings);
    ChatModel http = new OpenAiChatModel(parsed.llm(), Executors.newVirtualThreadPerTaskExecutor());
    services = TestEngine.services(settings, Map.of("slow", http), new EmptyKnowledgeBase());
    session = EventSourcedBehaviorTestKit.create(testKit.system(),
        ChatSession.create(UUID.randomUUID().toString(), services, null));
    session.<ChatSession.SessionAnswer>runCommand(replyTo ->
        new ChatSession.Open("default", null, null, JsonNodeFactory.instance.objectNode(), replyTo));
  }

  private record Started(String turnId, TurnStreamProbe stream) {}

  private Started startTurn(String message) {
    ChatSession.TurnAnswer reply = session.<ChatSession.TurnAnswer>runCommand(replyTo -> new ChatSession.StartTurn(
        message, null, null, List.of("slow"), "trace", replyTo)).reply();
    return new Started(((ChatSession.TurnReply) reply).turnId(), TurnStreamProbe.read(testKit, reply));
  }

  private static List<TurnFrame> untilTerminal(TurnStreamProbe stream) {
    List<TurnFrame> frames = new ArrayList<>();
    TurnFrame frame;
    do {
      frame = stream.next(WAIT);
      frames.add(frame);
    } while (!frame.terminal());
    return frames;
  }

  private static void awaitFirstToken(TurnStreamProbe stream) {
    TurnFrame frame;
    do {
      frame = stream.next(WAIT);
    } while (!(frame.event() instanceof StreamEvent.Token));
  }

  @Test
  void aTurnEndingWithinTheDeadlineCompletesAndNewTurnsAreRefused() throws Exception {
    mock.reconfigure(MockLlmSettings.defaults().withTokens(20).withDelays(Duration.ofMillis(20), Duration.ofMillis(50)));
    openSession();
    Started started = startTurn("finish me");
    String turnId = started.turnId();
    TurnStreamProbe probe = started.stream();
    awaitFirstToken(probe);

    var drained = services.turns().drain(Duration.ofSeconds(10), Duration.ofSeconds(5)).toCompletableFuture();
    var refused = session.<ChatSession.TurnAnswer>runCommand(replyTo -> new ChatSession.StartTurn(
        "one more", null, null, List.of("slow"), "trace", replyTo));

    assertThat(refused.reply()).isEqualTo(new ChatSession.Rejected(ChatSession.SHUTTING_DOWN,
        "This node is shutting down and takes no new turns; try again in a moment", null));
    assertThat(refused.hasNoEvents()).isTrue();
    assertThat(untilTerminal(probe).getLast().event()).isInstanceOf(TurnEnding.Completed.class);
    assertThat(drained.get(10, TimeUnit.SECONDS)).isZero();
    assertThat(session.getState().turn(turnId).orElseThrow().status()).isEqualTo(TurnStatus.COMPLETED);
  }

  @Test
  void aTurnOutlivingTheDeadlineIsInterruptedJournaledAndToldToItsClient() throws Exception {
    mock.reconfigure(MockLlmSettings.defaults().withTokens(400).withDelays(Duration.ofMillis(20), Duration.ofMillis(50)));
    openSession();
    Started started = startTurn("never ending");
    String turnId = started.turnId();
    TurnStreamProbe probe = started.stream();
    awaitFirstToken(probe);
    long cancelledBefore = mock.stats().streamsCancelled();

    int interrupted = services.turns().drain(Duration.ofMillis(300), Duration.ofSeconds(5))
        .toCompletableFuture().get(30, TimeUnit.SECONDS);

    assertThat(interrupted).isEqualTo(1);
    assertThat(services.turns().count()).isZero();
    TurnFrame terminal = untilTerminal(probe).getLast();
    assertThat(terminal.event()).isInstanceOf(TurnEnding.Failed.class);
    assertThat(((TurnEnding.Failed) terminal.event()).code()).isEqualTo(ChatSession.INTERRUPTED);
    mock.stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    TurnRecord turn = session.getState().turn(turnId).orElseThrow();
    assertThat(turn.status()).isEqualTo(TurnStatus.FAILED);
    assertThat(turn.endCode()).isEqualTo(ChatSession.INTERRUPTED);
    assertThat(turn.outcome().runs().getFirst().text()).startsWith("tok0 ");
  }
}
