package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.AgentSettings;
import dev.colloquy.config.LanguageSettings;
import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.InFlight;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.agent.CannedReply;
import dev.colloquy.engine.agent.LanguageDetection;
import dev.colloquy.engine.agent.lingua.LinguaLanguageDetection;
import dev.colloquy.engine.agent.Memory;
import dev.colloquy.engine.agent.MemoryStore;
import dev.colloquy.engine.agent.RecordingMemoryStore;
import dev.colloquy.engine.agent.TenantPolicies;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.knowledge.EmptyKnowledgeBase;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.model.ModelException;
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
import org.junit.jupiter.api.BeforeAll;
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
      null, null, null, null, null, null, null, null, null, "MediCare Clinics", "healthcare", null, null));

  /** The clinic without a webhook: nobody to escalate to, so its domain queries are answered by the model. */
  private static final TenantConfig NO_HUMANS = CLINIC.overlay(TenantConfig.NO_CHANGE.overlay(new TenantConfig(null,
      null, null, "", null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
      null, null, null, null, null)));

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
    return services(model, routeByModel, memories, tenant, LanguageDetection.none());
  }

  private static EngineServices services(ScriptedModel model, boolean routeByModel, MemoryStore memories,
      TenantConfig tenant, LanguageDetection languages) {
    ColloquySettings settings = ColloquySettings.create(ConfigFactory.parseString(
            "colloquy.llm.providers.scripted { base-url = \"http://127.0.0.1:9/v1\", models = m,"
                + " prices { m { input-per-million = 1.0, output-per-million = 2.0 } } }")
        .withFallback(ConfigFactory.defaultReference()).resolve());
    AgentSettings agent = new AgentSettings(routeByModel, Duration.ofSeconds(5), List.of(), settings.agent().webhooks(),
        new AgentSettings.Memory(5, AgentSettings.Extraction.MODEL));
    return new EngineServices(settings.session(), settings.llm(), new ModelCatalog(Map.of("m", model), "m"),
        new EmptyKnowledgeBase(), new InFlight(), EngineMetrics.NONE, true,
        AnswerBudgets.fixed(EngineServices.DEFAULT_MAX_TOKENS), TenantInstructions.NONE,
        new AgentServices(TenantPolicies.fixed(tenant), agent, memories, Executors.newVirtualThreadPerTaskExecutor(),
            languages));
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
        .isEqualTo(new AgentTrace(Intent.CONVERSATIONAL, AgentTrace.OFFLINE, null, false, List.of(), List.of(),
            List.of(new AgentCall(AgentCall.EXTRACTION, "scripted", "m", new Usage(10, 2, 14e-6))), null));
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

  /** A detection that finds English once {@code detecting} is counted down. */
  private static LanguageDetection englishOnceCountedDown(java.util.concurrent.CountDownLatch detecting) {
    return text -> {
      uncheck(() -> detecting.await(10, java.util.concurrent.TimeUnit.SECONDS));
      return java.util.Optional.of("en");
    };
  }

  @Test
  void theRouterRunsBesideTheLanguageStepWhenTheTenantDoesNotTranslate() throws Exception {
    java.util.concurrent.CountDownLatch detecting = new java.util.concurrent.CountDownLatch(1);
    LanguageDetection held = englishOnceCountedDown(detecting);
    ScriptedModel model = new ScriptedModel();
    Thread.ofVirtual().start(() -> uncheck(() -> {
      ScriptedModel.Call routing = model.nextCall();
      assertThat(detecting.getCount()).as("routed while the language is still being detected").isOne();
      detecting.countDown();
      routing.listener().onToken("conversational");
      routing.listener().onComplete(new TokenUsage(60, 1));
      answer(model, "Hi!");
      answer(model, "[]");
    }));

    Turn turn = run(services(model, true, new RecordingMemoryStore(), CLINIC, held), "thanks!", 0, false);

    assertThat(turn.events()).filteredOn(event -> event instanceof StreamEvent.IntentRouted)
        .containsExactly(new StreamEvent.IntentRouted(Intent.CONVERSATIONAL, "en"));
    assertThat(turn.ended().outcome().agent().intentSource()).isEqualTo(AgentTrace.BY_MODEL);
    assertThat(turn.text()).isEqualTo("Hi!");
  }

  @Test
  void aTenantThatDoesNotTranslateHasTheModelAskedWhileTheLanguageIsDetectedAndItsAnswerStreamedAfterTheIntent()
      throws Exception {
    java.util.concurrent.CountDownLatch detecting = new java.util.concurrent.CountDownLatch(1);
    LanguageDetection held = englishOnceCountedDown(detecting);
    ScriptedModel model = new ScriptedModel();
    Thread.ofVirtual().start(() -> uncheck(() -> {
      ScriptedModel.Call call = model.nextCall();
      assertThat(detecting.getCount()).as("the model asked while the language is still being detected").isOne();
      // The whole answer comes before the language: the turn waits for it to end.
      call.listener().onToken("Hi");
      call.listener().onToken("!");
      call.listener().onComplete(new TokenUsage(10, 2));
      detecting.countDown();
      answer(model, "[]");
    }));

    Turn turn = run(services(model, false, new RecordingMemoryStore(), CLINIC, held), "thanks!", 0, false);

    assertThat(turn.events()).containsExactly(new StreamEvent.Started(List.of("r1")),
        new StreamEvent.IntentRouted(Intent.CONVERSATIONAL, "en"), new StreamEvent.Token("r1", "Hi"),
        new StreamEvent.Token("r1", "!"), new StreamEvent.RunCompleted(turn.ended().outcome().runs().getFirst()));
    assertThat(turn.ended().outcome().agent().language()).isEqualTo("en");
    assertThat(turn.text()).isEqualTo("Hi!");
  }

  @Test
  void aTenantThatTranslatesHasTheModelAskedOnlyOnceTheLanguageIsKnown() throws Exception {
    java.util.concurrent.CountDownLatch detecting = new java.util.concurrent.CountDownLatch(1);
    LanguageDetection held = englishOnceCountedDown(detecting);
    ScriptedModel model = new ScriptedModel();
    Thread.ofVirtual().start(() -> uncheck(() -> {
      assertThat(model.callWithin(Duration.ofMillis(500))).as("no model call before the language is known").isNull();
      detecting.countDown();
      answer(model, "Hi!");
      answer(model, "[]");
    }));

    Turn turn = run(services(model, false, new RecordingMemoryStore(), translating(CLINIC), held), "thanks!", 0,
        false);

    assertThat(turn.events()).extracting(Object::getClass).containsExactly(StreamEvent.Started.class,
        StreamEvent.IntentRouted.class, StreamEvent.Token.class, StreamEvent.RunCompleted.class);
    assertThat(turn.ended().outcome().agent().language()).isEqualTo("en");
    assertThat(turn.text()).isEqualTo("Hi!");
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

  @Test
  void theAgentsOwnModelCallsArePricedAndBilledWithTheTurn() throws Exception {
    ScriptedModel model = new ScriptedModel();
    Thread.ofVirtual().start(() -> uncheck(() -> {
      ScriptedModel.Call routing = model.nextCall();
      routing.listener().onToken("conversational");
      routing.listener().onComplete(new TokenUsage(60, 1));
      answer(model, "Good evening!");
      ScriptedModel.Call extraction = model.nextCall();
      extraction.listener().onToken("[]");
      extraction.listener().onComplete(new TokenUsage(40, 3));
    }));

    Turn turn = run(services(model, true), "Good evening", 0, false);

    assertThat(turn.ended().outcome().agent().calls()).containsExactly(
        new AgentCall(AgentCall.ROUTING, "scripted", "m", new Usage(60, 1, 62e-6)),
        new AgentCall(AgentCall.EXTRACTION, "scripted", "m", new Usage(40, 3, 46e-6)));
    Usage answerUsage = turn.ended().outcome().runs().getFirst().usage();
    assertThat(answerUsage).isEqualTo(new Usage(10, 2, 14e-6));
    Usage billed = ((TurnEnding.Completed) turn.ended().ending()).usage();
    assertThat(billed.promptTokens()).isEqualTo(110);
    assertThat(billed.completionTokens()).isEqualTo(6);
    assertThat(billed.costUsd()).isCloseTo(122e-6, org.assertj.core.data.Offset.offset(1e-12));
  }

  /** Lingua itself, over English and French only. */
  private static final LanguageDetection ENGLISH_OR_FRENCH =
      LinguaLanguageDetection.of(new LanguageSettings(List.of("en", "fr"), false));

  /**
   * Loads Lingua's models before the turns, as a node's first message does: on a busy machine that
   * can take longer than these tests' step timeout, and a detection that times out passes through.
   */
  @BeforeAll
  static void loadLanguageModels() {
    assertThat(ENGLISH_OR_FRENCH.detect("Bonjour tout le monde, comment allez-vous ?")).contains("fr");
  }

  private static TenantConfig translating(TenantConfig tenant) {
    return tenant.overlay(new TenantConfig(null, null, null, null, null, null, null, null, null, null, null, null, null,
        null, null, null, null, null, null, List.of("en-GB"), null, null, null, true, null));
  }

  @Test
  void aFrenchMessageIsTranslatedForTheAgentAndItsAnswerBackWhenTheTenantAsks() throws Exception {
    ScriptedModel model = new ScriptedModel();
    String french = "Bonjour, je voudrais prendre un rendez-vous pour vendredi prochain, s'il vous plaît.";
    Thread.ofVirtual().start(() -> uncheck(() -> {
      ScriptedModel.Call in = model.nextCall();
      assertThat(in.request().messages().getFirst().content()).contains("from French to English");
      assertThat(in.request().question()).isEqualTo(french);
      in.listener().onToken("Hello, I would like to book an appointment for next Friday, please.");
      in.listener().onComplete(new TokenUsage(30, 15));
      ScriptedModel.Call answering = model.nextCall();
      assertThat(answering.request().question())
          .isEqualTo("Hello, I would like to book an appointment for next Friday, please.");
      answering.listener().onToken("Sure, at what time?");
      answering.listener().onComplete(new TokenUsage(10, 2));
      ScriptedModel.Call out = model.nextCall();
      assertThat(out.request().messages().getFirst().content()).contains("from English to French");
      assertThat(out.request().question()).isEqualTo("Sure, at what time?");
      out.listener().onToken("Bien sûr, ");
      out.listener().onToken("à quelle heure ?");
      out.listener().onComplete(new TokenUsage(12, 8));
      answer(model, "[]");
    }));

    Turn turn = run(services(model, false, new RecordingMemoryStore(), translating(NO_HUMANS), ENGLISH_OR_FRENCH),
        french, 0, false);

    assertThat(turn.events()).filteredOn(event -> event instanceof StreamEvent.IntentRouted)
        .extracting(event -> ((StreamEvent.IntentRouted) event).language()).containsExactly("fr");
    assertThat(turn.text()).isEqualTo("Bien sûr, à quelle heure ?");
    assertThat(turn.ended().outcome().agent().language()).isEqualTo("fr");
    assertThat(turn.ended().outcome().agent().calls()).first()
        .isEqualTo(new AgentCall(AgentCall.TRANSLATION, "scripted", "m", new Usage(30, 15, 60e-6)));
    assertThat(turn.ended().outcome().runs().getFirst().usage().totalTokens()).isEqualTo(10 + 2 + 12 + 8);
  }

  @Test
  void withoutTheTenantAskingTheMessagePassesThroughAndOnlyItsLanguageIsNoted() throws Exception {
    ScriptedModel model = new ScriptedModel();
    String french = "Merci beaucoup pour votre aide, c'était parfait et très rapide.";
    Thread.ofVirtual().start(() -> uncheck(() -> {
      ScriptedModel.Call answering = model.nextCall();
      assertThat(answering.request().question()).isEqualTo(french);
      answering.listener().onToken("Avec plaisir !");
      answering.listener().onComplete(new TokenUsage(10, 2));
      answer(model, "[]");
    }));

    Turn turn = run(services(model, false, new RecordingMemoryStore(), NO_HUMANS, ENGLISH_OR_FRENCH), french, 0, false);

    assertThat(turn.text()).isEqualTo("Avec plaisir !");
    assertThat(turn.ended().outcome().agent().language()).isEqualTo("fr");
    assertThat(turn.ended().outcome().agent().calls()).extracting(AgentCall::step).containsExactly(AgentCall.EXTRACTION);
  }

  @Test
  void aTranslationThatFailsLetsTheMessageThroughAsItWasWritten() throws Exception {
    ScriptedModel model = new ScriptedModel();
    String french = "Bonjour, je voudrais prendre un rendez-vous pour vendredi prochain, s'il vous plaît.";
    Thread.ofVirtual().start(() -> uncheck(() -> {
      model.nextCall().listener().onError(new ModelException(ModelException.UNAVAILABLE, "down"));
      ScriptedModel.Call answering = model.nextCall();
      assertThat(answering.request().question()).isEqualTo(french);
      answering.listener().onToken("Bien sûr.");
      answering.listener().onComplete(new TokenUsage(10, 2));
      answer(model, "[]");
    }));

    Turn turn = run(services(model, false, new RecordingMemoryStore(), translating(NO_HUMANS), ENGLISH_OR_FRENCH),
        french, 0, false);

    assertThat(turn.text()).isEqualTo("Bien sûr.");
    assertThat(turn.ended().outcome().agent().language()).isEqualTo("fr");
    assertThat(turn.ended().outcome().agent().calls()).extracting(AgentCall::step).containsExactly(AgentCall.EXTRACTION);
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
