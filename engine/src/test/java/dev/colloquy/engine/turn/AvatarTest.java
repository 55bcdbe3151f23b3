package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenCounter;
import dev.colloquy.engine.model.TokenUsage;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** One model run with a probe for its supervisor, a model the test speaks for, and its turn's transcript. */
class AvatarTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ScriptedModel model = new ScriptedModel();
  private final TestProbe<TurnSupervisor.Command> supervisor = testKit.createTestProbe();
  private final Transcript transcript = new Transcript("s1", "t1", "trace", List.of(new RunSpec("r1", "scripted", "m")));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static LlmSettings llm(String overrides) {
    return ColloquySettings.create(ConfigFactory.parseString(overrides)
        .withFallback(ConfigFactory.defaultReference()).resolve()).llm();
  }

  private static final List<ChatMessage> PROMPT = List.of(ChatMessage.system("Answer briefly."),
      ChatMessage.user("How long is the warranty on the espresso machine?"));

  private ActorRef<Avatar.Command> run(LlmSettings llm) {
    return run(llm, transcript);
  }

  private ActorRef<Avatar.Command> run(LlmSettings llm, Transcript into) {
    ChatRequest request = new ChatRequest("m", PROMPT, List.of(), 256);
    return testKit.spawn(Avatar.create(0, new RunSpec("r1", "scripted", "m"), model, request, into.run(0), llm, 4,
        supervisor.ref()));
  }

  @Test
  void aRunsTokensGoToItsTranscriptAndItReportsItsTextAndUsageWhenTheModelIsDone() throws Exception {
    TranscriptReader reader = TranscriptReader.read(testKit, transcript, 0);
    ActorRef<Avatar.Command> avatar = run(llm(""));
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("one ");
    call.listener().onToken("two");
    call.listener().onComplete(new TokenUsage(4, 2));

    assertThat(reader.nextEvent()).isEqualTo(new StreamEvent.Token("r1", "one "));
    assertThat(reader.nextEvent()).isEqualTo(new StreamEvent.Token("r1", "two"));
    RunOutcome outcome = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();
    assertThat(outcome.status()).isEqualTo(RunOutcome.Status.COMPLETED);
    assertThat(outcome.text()).isEqualTo("one two");
    assertThat(outcome.provider()).isEqualTo("scripted");
    assertThat(outcome.usage().totalTokens()).isEqualTo(6);
    assertThat(outcome.usage().estimated()).as("the provider's own count").isFalse();
    supervisor.expectTerminated(avatar, WAIT);
  }

  @Test
  void aRunCancelledMidStreamIsBilledForItsPromptAndWhatItStreamedAsAnEstimate() throws Exception {
    ActorRef<Avatar.Command> avatar = run(llm("""
        colloquy.llm { provider = scripted, base-url = "http://127.0.0.1:9/v1", model = m,
          prices.m { input-per-million = 1000000, output-per-million = 2000000 } }"""));
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("The warranty ");
    call.listener().onToken("lasts two years");

    avatar.tell(new Avatar.Cancel());

    Usage usage = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome().usage();
    assertThat(usage.estimated()).isTrue();
    assertThat(usage.promptTokens()).isEqualTo(TokenCounter.count(PROMPT)).isPositive();
    assertThat(usage.completionTokens()).isEqualTo(TokenCounter.count("The warranty lasts two years")).isPositive();
    assertThat(usage.costUsd()).isEqualTo(usage.promptTokens() + 2.0 * usage.completionTokens());
  }

  @Test
  void aRunThatBrokeOffOrTimedOutIsBilledForWhatWasSentAndStreamed() throws Exception {
    run(llm(""));
    ScriptedModel.Call broken = model.nextCall();
    broken.listener().onToken("Half an ans");
    broken.listener().onError(new ModelException(ModelException.STREAM_BROKEN, "The model stream broke off"));
    Usage brokenUsage = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome().usage();
    assertThat(brokenUsage).isEqualTo(new Usage(TokenCounter.count(PROMPT), TokenCounter.count("Half an ans"), 0, true));

    run(llm("colloquy.llm.first-token-timeout = 200ms"),
        new Transcript("s1", "t2", "trace", List.of(new RunSpec("r1", "scripted", "m"))));
    model.nextCall();
    Usage silentUsage = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome().usage();
    assertThat(silentUsage).isEqualTo(new Usage(TokenCounter.count(PROMPT), 0, 0, true));
  }

  @Test
  void aCallTheEndpointRefusedBeforeAnsweringCostsNothing() throws Exception {
    run(llm(""));
    model.nextCall().listener().onError(new ModelException(ModelException.REJECTED, "The model endpoint answered HTTP 400"));

    RunOutcome outcome = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();
    assertThat(outcome.status()).isEqualTo(RunOutcome.Status.FAILED);
    assertThat(outcome.usage()).isEqualTo(Usage.NONE);
  }

  @Test
  void aModelSilentPastTheFirstTokenTimeoutFailsTheRunAndHasItsCallCancelled() throws Exception {
    run(llm("colloquy.llm.first-token-timeout = 200ms"));
    ScriptedModel.Call call = model.nextCall();

    RunOutcome outcome = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();

    assertThat(outcome.status()).isEqualTo(RunOutcome.Status.FAILED);
    assertThat(outcome.errorCode()).isEqualTo(ModelException.TIMEOUT);
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void aModelStillStreamingAtTheTotalTimeoutFailsTheRunKeepingItsTextAndHasItsCallCancelled() throws Exception {
    // The run's own timer ends it: the HTTP client's limit on the whole call is only a backstop, 5 s later.
    run(llm("colloquy.llm.first-token-timeout = 10s\ncolloquy.llm.total-timeout = 300ms"));
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("still ");
    call.listener().onToken("going");

    RunOutcome outcome = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();

    assertThat(outcome.status()).isEqualTo(RunOutcome.Status.FAILED);
    assertThat(outcome.errorCode()).isEqualTo(ModelException.TIMEOUT);
    assertThat(outcome.text()).isEqualTo("still going");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void aCancelledRunReportsTheTextItHadProduced() throws Exception {
    ActorRef<Avatar.Command> avatar = run(llm(""));
    ScriptedModel.Call call = model.nextCall();
    TranscriptReader reader = TranscriptReader.read(testKit, transcript, 0);
    call.listener().onToken("so far");
    assertThat(reader.nextEvent()).isEqualTo(new StreamEvent.Token("r1", "so far"));

    avatar.tell(new Avatar.Cancel());

    RunOutcome outcome = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();
    assertThat(outcome.status()).isEqualTo(RunOutcome.Status.CANCELLED);
    assertThat(outcome.text()).isEqualTo("so far");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void aFirstTokenInTimeKeepsTheRunGoingPastTheFirstTokenTimeout() throws Exception {
    run(llm("colloquy.llm.first-token-timeout = 200ms"));
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("early");

    supervisor.expectNoMessage(Duration.ofMillis(600));
    call.listener().onComplete(new TokenUsage(1, 1));

    RunOutcome outcome = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();
    assertThat(outcome.status()).isEqualTo(RunOutcome.Status.COMPLETED);
    assertThat(outcome.text()).isEqualTo("early");
  }

  @Test
  void aTokenArrivingAfterTheRunEndedIsDroppedSoTheTextIsWhatWasStreamed() throws Exception {
    ActorRef<Avatar.Command> avatar = run(llm(""));
    ScriptedModel.Call call = model.nextCall();
    call.listener().onToken("kept");
    avatar.tell(new Avatar.Cancel());
    RunOutcome outcome = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();

    call.listener().onToken(" late");

    assertThat(outcome.text()).isEqualTo("kept");
    assertThat(transcript.tokensOf(0)).isEqualTo("kept");
    assertThat(transcript.marks()).containsExactly(FrameMark.tokens(0, 4));
  }

  @Test
  void runsThatWouldPassTheTurnsAnswerBudgetTogetherEndTooLargeKeepingWhatTheyStreamedWithinIt() throws Exception {
    Transcript fanOut = new Transcript("s1", "t2", "trace",
        List.of(new RunSpec("r1", "scripted", "m"), new RunSpec("r2", "scripted", "m")));
    int third = (int) (Transcript.ANSWER_BUDGET_BYTES / 3);
    ChatRequest request = new ChatRequest("m", PROMPT, List.of(), 256);
    testKit.spawn(Avatar.create(0, new RunSpec("r1", "scripted", "m"), model, request, fanOut.run(0), llm(""), 4,
        supervisor.ref()));
    ScriptedModel.Call first = model.nextCall();
    testKit.spawn(Avatar.create(1, new RunSpec("r2", "scripted", "m"), model, request, fanOut.run(1), llm(""), 4,
        supervisor.ref()));
    ScriptedModel.Call second = model.nextCall();

    first.listener().onToken("a".repeat(third));
    second.listener().onToken("b".repeat(third));
    first.listener().onToken("a".repeat(third));
    second.listener().onToken("b".repeat(third));
    second.listener().onToken("b".repeat(third));
    first.listener().onComplete(new TokenUsage(4, 2));

    RunOutcome cut = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();
    RunOutcome whole = supervisor.expectMessageClass(TurnSupervisor.RunEnded.class, WAIT).outcome();
    if (cut.runId().equals("r1")) {
      RunOutcome swap = cut;
      cut = whole;
      whole = swap;
    }
    assertThat(cut.runId()).isEqualTo("r2");
    assertThat(cut.status()).isEqualTo(RunOutcome.Status.FAILED);
    assertThat(cut.errorCode()).isEqualTo(ModelException.ANSWER_TOO_LARGE);
    assertThat(cut.errorMessage()).contains("together");
    assertThat(cut.text()).isEqualTo("b".repeat(third));
    assertThat(whole.status()).isEqualTo(RunOutcome.Status.COMPLETED);
    assertThat(whole.text()).isEqualTo("a".repeat(2 * third));
    assertThat((long) fanOut.tokensOf(0).length() + fanOut.tokensOf(1).length())
        .isLessThanOrEqualTo(Transcript.ANSWER_BUDGET_BYTES);
    assertThat(fanOut.marks()).as("no frame carries a refused token")
        .containsExactly(FrameMark.tokens(0, third), FrameMark.tokens(1, third), FrameMark.tokens(0, third));
  }
}
