package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.agent.MemoryStore;
import dev.colloquy.engine.agent.TenantPolicies;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.openai.OpenAiChatModel;
import dev.colloquy.engine.tenant.FailoverPolicy;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A session whose node crashes in the middle of a turn (the entity restarts from its journal with the
 * turn pending): a client resuming from the last id it saw gets the turn's end without a frame twice,
 * with what the checkpoints journaled kept, and the turn runs again when the tenant allows it.
 */
class TurnFailoverTest {

  private static final int CHECKPOINT_FRAMES = 4;
  private static final MockLlmSettings MODEL = MockLlmSettings.defaults().withTokens(30)
      .withDelays(Duration.ofMillis(20), Duration.ofMillis(40));

  private static ActorTestKit testKit;
  private static MockLlmServer mock;

  private EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> session;
  private String sessionId;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
    mock = MockLlmServer.start(MODEL, "127.0.0.1", 0);
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

  private void open(FailoverPolicy failover) {
    String settings = "colloquy.llm { base-url = \"" + mock.baseUrl() + "\", model = mock, max-retries = 0 }\n"
        + "colloquy.session.checkpoint { frames = " + CHECKPOINT_FRAMES + ", interval = 200ms }";
    ColloquySettings parsed = TestEngine.settings(settings);
    ChatModel http = new OpenAiChatModel(parsed.llm(), Executors.newVirtualThreadPerTaskExecutor());
    EngineServices base = TestEngine.services(settings, Map.of("mock", http), new EmptyKnowledgeBase());
    // The model routes each message, so the turn makes a model call of the agent's own before it answers.
    AgentServices agent = AgentServices.fixed(TenantConfig.NO_CHANGE);
    AgentSettings routing = agent.settings();
    agent = new AgentServices(TenantPolicies.fixed(TenantConfig.NO_CHANGE), new AgentSettings(true,
        routing.stepTimeout(), routing.egressAllow(), routing.webhooks(), routing.memory()), MemoryStore.none(),
        Executors.newVirtualThreadPerTaskExecutor());
    EngineServices services = new EngineServices(base.session(), base.llm(), base.models(), base.knowledge(),
        base.turns(), base.metrics(), base.logContent(), base.answerBudgets(), base.instructions(), failover,
        () -> true, agent);
    sessionId = UUID.randomUUID().toString();
    session = EventSourcedBehaviorTestKit.create(testKit.system(), ChatSession.create(sessionId, services, null));
    session.<ChatSession.SessionAnswer>runCommand(replyTo ->
        new ChatSession.Open("default", null, null, JsonNodeFactory.instance.objectNode(), replyTo));
  }

  /** Starts a turn and reads its stream until {@code tokens} tokens have arrived. */
  /**
   * What the client saw and what the journal holds are one stream: the shorter is the start of the
   * longer. The turn keeps streaming after the test has read its frames, so a checkpoint may journal
   * frames the test never read before the session is restarted.
   */
  private static void assertSameStream(List<TurnFrame> seen, List<TurnFrame> journaled) {
    if (journaled.size() <= seen.size()) {
      assertThat(seen).startsWith(journaled.toArray(TurnFrame[]::new));
    } else {
      assertThat(journaled).startsWith(seen.toArray(TurnFrame[]::new));
    }
  }

  private List<TurnFrame> startAndRead(int tokens) {
    var reply = session.<ChatSession.TurnAnswer>runCommand(replyTo ->
        new ChatSession.StartTurn("tell me", null, null, List.of("mock"), "trace", replyTo)).reply();
    TurnStreamProbe stream = TurnStreamProbe.read(testKit, reply);
    List<TurnFrame> seen = new ArrayList<>();
    while (seen.stream().filter(frame -> frame.event() instanceof StreamEvent.Token).count() < tokens) {
      seen.add(stream.next());
    }
    stream.leave();
    return seen;
  }

  private List<TurnFrame> join(String turnId, long afterId) {
    var reply = session.<ChatSession.TurnAnswer>runCommand(replyTo -> new ChatSession.JoinTurn(turnId, afterId, replyTo))
        .reply();
    return TurnStreamProbe.read(testKit, reply).untilTerminal();
  }

  private List<Object> events() {
    return session.persistenceTestKit().persistedInStorage(ChatSession.persistenceId(sessionId).id());
  }

  private long checkpoints() {
    return events().stream().filter(event -> event instanceof ChatSession.TurnCheckpointed).count();
  }

  @Test
  void aTurnCutShortByACrashEndsInterruptedWithWhatItsCheckpointsJournaledAndNothingTwice() {
    open(FailoverPolicy.INTERRUPT);
    List<TurnFrame> seen = startAndRead(12);
    String turnId = seen.getFirst().turnId();
    assertThat(checkpoints()).as("the acceptance and at least one checkpoint").isGreaterThanOrEqualTo(2);

    session.restart();
    List<TurnFrame> resumed = join(turnId, seen.getLast().id());

    assertThat(resumed).hasSize(1);
    TurnFrame terminal = resumed.getFirst();
    assertThat(terminal.id()).isEqualTo(TurnFrame.LOST_LAYOUT_TERMINAL_ID);
    assertThat(terminal.event()).isInstanceOfSatisfying(TurnEnding.Failed.class,
        failed -> assertThat(failed.interrupted()).isTrue());

    List<TurnFrame> replayed = join(turnId, 0);
    List<TurnFrame> journaled = replayed.subList(0, replayed.size() - 1);
    assertSameStream(seen, journaled);
    assertThat(seen.size() - journaled.size()).as("frames lost with the node")
        .isLessThanOrEqualTo(2 * CHECKPOINT_FRAMES);
    assertThat(replayed.getLast()).isEqualTo(terminal);
    ChatSession.TurnFailed failed = (ChatSession.TurnFailed) events().stream()
        .filter(event -> event instanceof ChatSession.TurnFailed).findFirst().orElseThrow();
    assertThat(failed.outcome().runs().getFirst().text()).isEqualTo(text(journaled)).isNotEmpty();
    assertThat(failed.outcome().frames().getLast()).isEqualTo(FrameMark.of(FrameMark.Kind.LOST));
    assertThat(failed.outcome().agentCalls()).as("the agent's model calls before the crash, billed with the turn")
        .isNotEmpty().allSatisfy(call -> assertThat(call.usage().promptTokens()).isPositive());
  }

  @Test
  void whenTheTenantAllowsItTheTurnRunsAgainAfterARestartFrameAboveEveryIdAClientSaw() {
    open(FailoverPolicy.CONTINUE);
    List<TurnFrame> seen = startAndRead(12);
    String turnId = seen.getFirst().turnId();

    session.restart();
    List<TurnFrame> resumed = join(turnId, seen.getLast().id());

    TurnFrame restart = resumed.getFirst();
    assertThat(restart.event()).isInstanceOfSatisfying(StreamEvent.Restarted.class, restarted -> {
      assertThat(restarted.reason()).isEqualTo("node_lost");
      assertThat(restarted.runIds()).hasSize(1).doesNotContain(((StreamEvent.Started) seen.getFirst().event()).runIds().getFirst());
    });
    assertThat(restart.id()).isGreaterThan(seen.getLast().id());
    assertThat(ids(resumed)).isSorted().doesNotHaveDuplicates();
    TurnFrame terminal = resumed.getLast();
    assertThat(terminal.event()).isInstanceOfSatisfying(TurnEnding.Completed.class,
        completed -> assertThat(completed.text()).isEqualTo(MODEL.text(MODEL.tokens())));
    assertThat(text(resumed)).isEqualTo(MODEL.text(MODEL.tokens()));
    assertThat(resumed).noneMatch(frame -> frame.event() instanceof StreamEvent.Started);

    List<TurnFrame> replayed = join(turnId, 0);
    int restartAt = replayed.indexOf(restart);
    assertThat(restartAt).as("the replay holds the restart frame").isPositive();
    assertSameStream(seen, replayed.subList(0, restartAt));
    assertThat(replayed.subList(restartAt, replayed.size())).isEqualTo(resumed);
    assertThat(session.getState().turn(turnId).orElseThrow().attempts()).hasSize(1);

    // Both attempts are billed: the one cut short for its agent calls, the one that completed for its own.
    ChatSession.TurnRestarted restarted = (ChatSession.TurnRestarted) events().stream()
        .filter(event -> event instanceof ChatSession.TurnRestarted).findFirst().orElseThrow();
    TurnOutcome cutShort = restarted.cutShort().outcome();
    assertThat(cutShort.agentCalls()).isNotEmpty();
    TurnOutcome completed = session.getState().turn(turnId).orElseThrow().outcome();
    Usage billed = session.getState().totals().usageByModel().values().stream().reduce(Usage.NONE, Usage::plus);
    assertThat(billed.promptTokens()).isEqualTo(cutShort.usage().promptTokens() + completed.usage().promptTokens());
  }

  private static List<Long> ids(List<TurnFrame> frames) {
    return frames.stream().map(TurnFrame::id).toList();
  }

  private static String text(List<TurnFrame> frames) {
    StringBuilder text = new StringBuilder();
    frames.forEach(frame -> {
      if (frame.event() instanceof StreamEvent.Token token) {
        text.append(token.text());
      }
    });
    return text.toString();
  }
}
