package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.config.LlmSettings;
import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ModelException;
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

  private ActorRef<Avatar.Command> run(LlmSettings llm) {
    ChatRequest request = new ChatRequest("m", List.of(), List.of(), 256);
    return testKit.spawn(Avatar.create(0, new RunSpec("r1", "scripted", "m"), model, request, transcript.run(0), llm, 4,
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
    supervisor.expectTerminated(avatar, WAIT);
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
}
