package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.InFlight;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.agent.CannedReply;
import dev.colloquy.engine.agent.Memory;
import dev.colloquy.engine.agent.MemoryStore;
import dev.colloquy.engine.agent.RecordingMemoryStore;
import dev.colloquy.engine.agent.TenantPolicies;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.model.TokenUsage;
import dev.colloquy.engine.observe.EngineMetrics;
import dev.colloquy.engine.tenant.AnswerBudgets;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantInstructions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's decisions in a turn, as its stream and its journaled outcome show them: routing (by the
 * offline rules and by the model), no retrieval for small talk, the tenant's redirect, escalation,
 * and a message forwarded to the human who has the session.
 */
class AgentTurnTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final TenantConfig CLINIC = TenantConfig.NO_CHANGE.overlay(new TenantConfig("Aria", null, null,
      "https://clinic.example/hooks", 0.55, 0.8, 10, List.of("appointments", "billing"), List.of(), null, null, null,
      null, null, null, null, null, null, null, null, null, "MediCare Clinics", "healthcare"));

  /** The clinic without a webhook: nobody to escalate to, so its domain queries are answered by the model. */
  private static final TenantConfig NO_HUMANS = CLINIC.overlay(TenantConfig.NO_CHANGE.overlay(new TenantConfig(null,
      null, null, "", null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
      null, null, null)));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private record Turn(List<StreamEvent> events, TurnSupervisor.Ended ended) {
    String text() {
      return ((TurnEnding.Completed) ended.ending()).text();
    }
  }

  private static EngineServices services(ScriptedModel model, boolean routeByModel) {
    return services(model, routeByModel, new RecordingMemoryStore(), CLINIC);
  }

  private static EngineServices services(ScriptedModel model, boolean routeByModel, MemoryStore memories,
      TenantConfig tenant) {
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.defaultReference().resolve());
    AgentSettings agent = new AgentSettings(routeByModel, Duration.ofSeconds(5), List.of(), settings.agent().webhooks(),
        new AgentSettings.Memory(5, AgentSettings.Extraction.MODEL));
    return new EngineServices(settings.session(), settings.llm(), new ModelCatalog(Map.of("m", model), "m"),
        new EmptyKnowledgeBase(), new InFlight(), EngineMetrics.NONE, true,
        AnswerBudgets.fixed(EngineServices.DEFAULT_MAX_TOKENS), TenantInstructions.NONE,
        new AgentServices(TenantPolicies.fixed(tenant), agent, memories, Executors.newVirtualThreadPerTaskExecutor()));
  }

  /** Runs a turn of user u1's session to its end; the test plays the model's part, if the model is called. */
  private static Turn run(EngineServices services, String message, int priorTurns, boolean handoff) {
    TestProbe<TurnSupervisor.Report> session = testKit.createTestProbe();
    String turnId = "t-" + System.nanoTime();
    List<RunSpec> runs = List.of(new RunSpec("r1", "scripted", "m"));
    Transcript transcript = new Transcript("s1", turnId, "trace", runs);
    TranscriptReader reader = TranscriptReader.read(testKit, transcript, 0);
    TurnPlan plan = new TurnPlan("s1", "clinic", turnId, "trace", message, null, List.of(), runs, "u1", priorTurns,
        handoff, null);
    ActorRef<TurnSupervisor.Command> supervisor =
        testKit.spawn(TurnSupervisor.create(plan, transcript, services, session.ref()));
    TurnSupervisor.Ended ended = null;
    while (ended == null) {
      switch (session.expectMessageClass(TurnSupervisor.Report.class, WAIT)) {
        case TurnSupervisor.Ended end -> ended = end;
        case TurnSupervisor.Checkpoint checkpoint ->
            supervisor.tell(new TurnSupervisor.CheckpointJournaled(checkpoint.checkpoint().reservedThrough()));
      }
    }
    supervisor.tell(new TurnSupervisor.OutcomePersisted());
    List<StreamEvent> events = new ArrayList<>();
    for (TurnFrame frame = reader.next(); !frame.terminal(); frame = reader.next()) {
      events.add(frame.event());
    }
    return new Turn(events, ended);
  }

  private static void answer(ScriptedModel model, String text) throws InterruptedException {
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken(text);
    call.listener().onComplete(new TokenUsage(10, 2));
  }

  @Test
  void smallTalkIsAnsweredByTheModelWithoutRetrievalOrGaps() throws Exception {
    ScriptedModel model = new ScriptedModel();
    Thread.ofVirtual().start(() -> uncheck(() -> {
      answer(model, "Hello! How can I help?");
      answer(model, "[]");
    }));

    Turn turn = run(services(model, false), "hello", 0, false);

    assertThat(turn.events()).extracting(Object::getClass).containsExactly(StreamEvent.Started.class,
        StreamEvent.IntentRouted.class, StreamEvent.Token.class, StreamEvent.RunCompleted.class);
    assertThat(turn.events().get(1)).isEqualTo(new StreamEvent.IntentRouted(Intent.CONVERSATIONAL));
    assertThat(turn.ended().outcome().gaps()).isEmpty();
    assertThat(turn.ended().outcome().agent())
        .isEqualTo(new AgentTrace(Intent.CONVERSATIONAL, AgentTrace.OFFLINE, null, false, List.of(), List.of()));
  }

  @Test
  void anOutOfScopeMessageGetsTheTenantsRedirectWithoutAModelCallOrEscalation() {
    Turn turn = run(services(new ScriptedModel(), false), "Who will win the cricket match?", 0, false);

    assertThat(turn.events()).noneMatch(event -> event instanceof StreamEvent.Retrieved
        || event instanceof StreamEvent.Escalated);
    assertThat(turn.text()).isEqualTo("I can only assist with appointments, billing for MediCare Clinics. "
        + "Is there something I can help you with in those areas?");
    assertThat(turn.ended().outcome().runs().getFirst().provider()).isEqualTo(CannedReply.PROVIDER);
    assertThat(turn.ended().outcome().escalated()).isFalse();
  }

  @Test
  void aDomainQueryWithNothingToGroundItEscalatesAndTheModelIsNotAsked() {
    Turn turn = run(services(new ScriptedModel(), false), "How do I get a refund for a cancelled appointment?", 0,
        false);

    assertThat(turn.events()).extracting(Object::getClass).containsSubsequence(StreamEvent.IntentRouted.class,
        StreamEvent.Retrieved.class, StreamEvent.GapFound.class, StreamEvent.Escalated.class, StreamEvent.Token.class);
    assertThat(turn.events()).contains(new StreamEvent.Escalated(EscalationReason.LOW_RETRIEVAL_CONFIDENCE));
    assertThat(turn.text()).startsWith("This is Aria. I'm connecting you to a human agent");
    assertThat(turn.ended().outcome().agent().escalation()).isEqualTo(EscalationReason.LOW_RETRIEVAL_CONFIDENCE);
  }

  @Test
  void theModelRoutesWhenItMayAndItsAnswerParses() throws Exception {
    ScriptedModel model = new ScriptedModel();
    Thread.ofVirtual().start(() -> uncheck(() -> {
      ScriptedModel.Call routing = model.nextCall();
      assertThat(routing.request().maxTokens()).isLessThanOrEqualTo(8);
      assertThat(routing.request().question()).contains("appointments, billing").contains("healthcare");
      routing.listener().onToken("Out_of_scope.\n");
      routing.listener().onComplete(new TokenUsage(60, 1));
    }));

    Turn turn = run(services(model, true), "Tell me about your new parking lot", 0, false);

    assertThat(turn.ended().outcome().agent().intent()).isEqualTo(Intent.OUT_OF_SCOPE);
    assertThat(turn.ended().outcome().agent().intentSource()).isEqualTo(AgentTrace.BY_MODEL);
  }

  @Test
  void anAnswerThatIsNotAnIntentLeavesTheRoutingToTheOfflineRules() throws Exception {
    ScriptedModel model = new ScriptedModel();
    Thread.ofVirtual().start(() -> uncheck(() -> {
      answer(model, "tok0 tok1 tok2");
      answer(model, "Hi!");
      answer(model, "no facts here");
    }));

    Turn turn = run(services(model, true), "thanks!", 0, false);

    assertThat(turn.ended().outcome().agent().intent()).isEqualTo(Intent.CONVERSATIONAL);
    assertThat(turn.ended().outcome().agent().intentSource()).isEqualTo(AgentTrace.OFFLINE);
    assertThat(turn.text()).isEqualTo("Hi!");
  }

  @Test
  void aMessageInASessionAHumanHasIsForwardedNotAnswered() {
    Turn turn = run(services(new ScriptedModel(), false), "Are you still there?", 1, true);

    assertThat(turn.events()).noneMatch(event -> event instanceof StreamEvent.IntentRouted);
    assertThat(turn.text()).isEqualTo("Your message has been passed to the human agent handling this conversation.");
    assertThat(turn.ended().outcome().agent()).isEqualTo(AgentTrace.handedOff());
  }

  @Test
  void factsNotedAfterOneTurnAreRecalledIntoTheNextTurnsPrompt() throws Exception {
    ScriptedModel model = new ScriptedModel();
    MemoryStore memories = new RecordingMemoryStore();
    EngineServices services = services(model, false, memories, NO_HUMANS);
    Thread.ofVirtual().start(() -> uncheck(() -> {
      answer(model, "Noted, thank you.");
      ScriptedModel.Call extraction = model.nextCall();
      assertThat(extraction.request().messages().getFirst().content()).contains("JSON array of strings");
      assertThat(extraction.request().question()).contains("I prefer appointments after 5 pm");
      extraction.listener().onToken("```json\n[\"The user prefers appointments after 5 pm\"]\n```");
      extraction.listener().onComplete(new TokenUsage(40, 12));
    }));

    Turn first = run(services, "Hi! I prefer appointments after 5 pm.", 0, false);

    assertThat(first.ended().outcome().agent().memories()).containsExactly("The user prefers appointments after 5 pm");
    assertThat(memories.list("clinic", "u1")).extracting(Memory::content)
        .containsExactly("The user prefers appointments after 5 pm");

    Thread.ofVirtual().start(() -> uncheck(() -> {
      ScriptedModel.Call answering = model.nextCall();
      // What is remembered about the user is data, in the block before the question, never in the system message.
      assertThat(answering.request().messages().getFirst().content()).doesNotContain("5 pm");
      assertThat(answering.request().messages().get(1).content())
          .contains("<user_memory>\nThe user prefers appointments after 5 pm\n</user_memory>");
      answering.listener().onToken("Shall I book 6 pm?");
      answering.listener().onComplete(new TokenUsage(50, 5));
      answer(model, "not json");
    }));
    Turn second = run(services, "Can I book a checkup for Friday?", 1, false);
    assertThat(second.ended().outcome().agent().recalled())
        .containsExactly(memories.list("clinic", "u1").getFirst().memoryId());
    assertThat(second.ended().outcome().agent().memories()).isEmpty();
  }

  private interface Step {
    void run() throws Exception;
  }

  private static void uncheck(Step step) {
    try {
      step.run();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
