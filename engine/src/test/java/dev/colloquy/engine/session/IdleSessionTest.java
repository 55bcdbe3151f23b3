package dev.colloquy.engine.session;

import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * When a session counts as idle (its own rule, in the state) and what the entity does when the
 * reaper asks it to close for idleness.
 */
class IdleSessionTest {

  private static final Instant OPENED = Instant.parse("2026-11-21T10:00:00Z");
  private static final Duration TIMEOUT = Duration.ofMinutes(30);

  private static ActorTestKit testKit;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
  }

  private static SessionState opened() {
    return SessionState.empty("s").apply(new ChatSession.SessionOpened("s", "default", null, null,
        JsonNodeFactory.instance.objectNode(), OPENED));
  }

  private static SessionState withTurnAcceptedAt(SessionState state, Instant at) {
    return state.apply(new ChatSession.TurnAccepted("t1", null, "trace", "m1", "Hello",
        List.of(new RunSpec("r1", "openai", "mock")), at));
  }

  private static TurnOutcome outcome() {
    RunOutcome run = new RunOutcome("r1", "openai", "mock", RunOutcome.Status.COMPLETED, "Hi", new Usage(12, 5, 0.001),
        40, null, null);
    return new TurnOutcome(List.of(run), List.of(), 0, List.of(), List.of(), 40);
  }

  @Test
  void aSessionWithoutTurnsIsIdleOneTimeoutAfterItOpened() {
    SessionState state = opened();

    assertThat(state.lastActivity()).isEqualTo(OPENED);
    assertThat(state.idleAt(OPENED.plus(TIMEOUT).minusSeconds(1), TIMEOUT)).isFalse();
    assertThat(state.idleAt(OPENED.plus(TIMEOUT), TIMEOUT)).isTrue();
  }

  @Test
  void aTurnRunningOrQueuedIsNeverIdleAndAnEndedOneCountsFromItsEnd() {
    Instant accepted = OPENED.plus(Duration.ofMinutes(10));
    SessionState running = withTurnAcceptedAt(opened(), accepted);

    assertThat(running.lastActivity()).isEqualTo(accepted);
    assertThat(running.idleAt(accepted.plus(Duration.ofDays(1)), TIMEOUT)).isFalse();

    Instant ended = accepted.plus(Duration.ofMinutes(5));
    SessionState done = running.apply(new ChatSession.TurnCompleted("t1", "a1", outcome(), ended));

    assertThat(done.lastActivity()).isEqualTo(ended);
    assertThat(done.idleAt(accepted.plus(TIMEOUT), TIMEOUT)).isFalse();
    assertThat(done.idleAt(ended.plus(TIMEOUT), TIMEOUT)).isTrue();
    SessionSummary summary = done.summarize(ended.plus(TIMEOUT));
    assertThat(summary.turns()).isEqualTo(1);
    assertThat(summary.usageByModel()).containsEntry("openai/mock", new Usage(12, 5, 0.001));
    assertThat(summary.durationMs()).isEqualTo(Duration.ofMinutes(45).toMillis());
  }

  @Test
  void aClosedSessionIsNotIdle() {
    SessionState closed = opened().apply(new ChatSession.SessionClosed("closed", opened().summarize(OPENED), OPENED));

    assertThat(closed.idleAt(OPENED.plus(Duration.ofDays(1)), TIMEOUT)).isFalse();
  }

  @Test
  void anIdleSessionClosesItselfAfterTheTimeoutItIsGivenOnceAndARecentOneRefuses() {
    var idle = entity("colloquy.session.idle-timeout = 1h");
    open(idle);

    var closed = idle.<ChatSession.SessionAnswer>runCommand(replyTo -> new ChatSession.CloseIfIdle(Duration.ofMillis(1), replyTo));

    assertThat(closed.events()).hasSize(1);
    ChatSession.SessionClosed event = (ChatSession.SessionClosed) closed.events().getFirst();
    assertThat(event.reason()).isEqualTo("idle");
    assertThat(event.summary().turns()).isZero();
    assertThat(event.summary().durationMs()).as("billed up to the idle deadline, not to when the reaper came").isEqualTo(1);
    assertThat(event.at()).isEqualTo(event.summary().openedAt().plusMillis(1));
    assertThat(closed.state().status()).isEqualTo(SessionStatus.CLOSED);
    var again = idle.<ChatSession.SessionAnswer>runCommand(replyTo -> new ChatSession.CloseIfIdle(Duration.ofMillis(1), replyTo));
    assertThat(again.events()).isEmpty();
    assertThat(again.reply()).isInstanceOf(ChatSession.Rejected.class);

    var recent = entity("colloquy.session.idle-timeout = 1ms");
    open(recent);
    var refused = recent.<ChatSession.SessionAnswer>runCommand(replyTo -> new ChatSession.CloseIfIdle(Duration.ofHours(1), replyTo));
    assertThat(refused.events()).isEmpty();
    assertThat(refused.reply()).isInstanceOf(ChatSession.Rejected.class);
    assertThat(refused.state().open()).isTrue();
  }

  private static EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> entity(String settings) {
    return EventSourcedBehaviorTestKit.create(testKit.system(), ChatSession.create(UUID.randomUUID().toString(),
        TestEngine.offline(settings), null));
  }

  private static void open(EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> entity) {
    var opened = entity.<ChatSession.SessionAnswer>runCommand(replyTo ->
        new ChatSession.Open("default", null, null, JsonNodeFactory.instance.objectNode(), replyTo));
    assertThat(opened.reply()).isInstanceOf(ChatSession.SessionReply.class);
  }
}
