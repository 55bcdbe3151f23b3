package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.CheckpointWrites;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.tenant.FailoverPolicy;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node writes a bounded number of checkpoints at once. A turn whose checkpoint finds no place does not
 * fail and does not queue a write: it streams within the reserve of its last journaled checkpoint, waits
 * beyond it, and goes on once a place is free, every frame still journaled before a reader gets it.
 */
class CheckpointWritesTest {

  private static final int CHECKPOINT_FRAMES = 4;
  /** 100 ms apart: the model still streams when the test gives the place back. */
  private static final int TOKENS = 40;

  private static ActorTestKit testKit;
  private static MockLlmServer mock;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
    mock = MockLlmServer.start(MockLlmSettings.defaults().withTokens(TOKENS)
        .withDelays(Duration.ofMillis(10), Duration.ofMillis(100)), "127.0.0.1", 0);
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
    mock.close();
  }

  @Test
  void aTurnWhoseCheckpointsFindNoPlaceWaitsWithinItsReserveAndEndsOnceOneIsFree() {
    String settings = "colloquy.llm { base-url = \"" + mock.baseUrl() + "\", model = mock, max-retries = 0 }\n"
        + "colloquy.session.checkpoint { frames = " + CHECKPOINT_FRAMES + ", interval = 100ms }";
    ColloquySettings parsed = TestEngine.settings(settings);
    ChatModel http = new OpenAiChatModel(parsed.llm(), Executors.newVirtualThreadPerTaskExecutor());
    EngineServices base = TestEngine.services(settings, Map.of("mock", http), new EmptyKnowledgeBase());
    CheckpointWrites writes = new CheckpointWrites(1);
    EngineServices services = new EngineServices(base.session(), base.llm(), base.models(), base.knowledge(),
        base.turns(), base.metrics(), base.logContent(), base.answerBudgets(), base.instructions(),
        FailoverPolicy.INTERRUPT, () -> true, AgentServices.fixed(TenantConfig.NO_CHANGE), writes);
    String sessionId = UUID.randomUUID().toString();
    var session = EventSourcedBehaviorTestKit.<ChatSession.Command, ChatSession.Event, SessionState>create(
        testKit.system(), ChatSession.create(sessionId, services, null));
    session.<ChatSession.SessionAnswer>runCommand(replyTo ->
        new ChatSession.Open("default", null, null, JsonNodeFactory.instance.objectNode(), replyTo));
    assertThat(writes.tryStart()).as("another session's write holds the only place").isTrue();

    var reply = session.<ChatSession.TurnAnswer>runCommand(replyTo ->
        new ChatSession.StartTurn("tell me", null, null, List.of("mock"), "trace", replyTo)).reply();
    TurnStreamProbe stream = TurnStreamProbe.read(testKit, reply);
    List<TurnFrame> before = stream.untilQuiet(Duration.ofSeconds(1));
    List<ChatSession.TurnCheckpointed> whileHeld = checkpoints(session, sessionId);

    writes.ended();
    List<TurnFrame> after = stream.untilTerminal();

    assertThat(whileHeld).as("only the checkpoint journaled with the turn's acceptance").hasSize(1);
    assertThat(before).isNotEmpty();
    assertThat(before.getLast().terminal()).as("the stream waited").isFalse();
    assertThat(before.getLast().id()).as("no frame beyond the reserve of the journaled checkpoint")
        .isLessThanOrEqualTo(whileHeld.getFirst().checkpoint().reservedThrough());
    assertThat(after.getLast().event()).isInstanceOf(TurnEnding.Completed.class);
    List<TurnFrame> all = new ArrayList<>(before);
    all.addAll(after);
    assertThat(all.stream().filter(seen -> seen.event() instanceof StreamEvent.Token)).hasSize(TOKENS);
    assertThat(checkpoints(session, sessionId)).as("checkpoints were written once a place was free").hasSizeGreaterThan(1);
    assertThat(writes.free()).as("every place is given back").isEqualTo(1);
  }

  private static List<ChatSession.TurnCheckpointed> checkpoints(
      EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> session, String sessionId) {
    return session.persistenceTestKit().persistedInStorage(ChatSession.persistenceId(sessionId).id()).stream()
        .filter(ChatSession.TurnCheckpointed.class::isInstance).map(ChatSession.TurnCheckpointed.class::cast).toList();
  }
}
