package dev.colloquy.engine.session;

import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.TurnStatus;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random command sequences against one session; afterwards the state recovered from the journal
 * (and from the snapshots taken every few events) equals the live state, and the session's
 * invariants hold. The seed of a failing case is in the test name.
 */
class JournalReplayPropertyTest {

  private static final int COMMANDS = 25;

  private static ActorTestKit testKit;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  static Stream<Long> seeds() {
    return LongStream.rangeClosed(1, 20).boxed();
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void theStateRebuiltFromTheJournalEqualsTheLiveState(long seed) {
    Random random = new Random(seed);
    var session = EventSourcedBehaviorTestKit.<ChatSession.Command, ChatSession.Event, SessionState>create(
        testKit.system(),
        ChatSession.create(UUID.randomUUID().toString(),
            TestEngine.offline("colloquy.session.snapshot-every = 3"), null));
    List<String> turnIds = new ArrayList<>();
    List<String> keys = List.of("k1", "k2", "k3");
    for (int i = 0; i < COMMANDS; i++) {
      switch (random.nextInt(8)) {
        case 0 -> session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Open("default", null, "persona " + seed,
            JsonNodeFactory.instance.objectNode().put("seed", seed), r));
        case 1, 2, 3 -> {
          String key = random.nextBoolean() ? keys.get(random.nextInt(keys.size())) : null;
          String message = random.nextInt(10) == 0 ? " " : "message " + random.nextInt(1000);
          var result = session.<ChatSession.TurnAnswer>runCommand(r ->
              new ChatSession.StartTurn(message, null, key, List.of(), "trace", r));
          if (result.reply() instanceof ChatSession.TurnReply turn) {
            turnIds.add(turn.turnId());
            TurnStreamProbe.read(testKit, turn).untilTerminal();
          }
        }
        case 4 -> {
          String turnId = turnIds.isEmpty() || random.nextBoolean() ? UUID.randomUUID().toString()
              : turnIds.get(random.nextInt(turnIds.size()));
          session.<ChatSession.TurnAnswer>runCommand(r -> new ChatSession.CancelTurn(turnId, r));
        }
        case 5 -> session.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Close("closed", r));
        case 6 -> {
          if (random.nextInt(4) == 0) {
            session.<ChatSession.DeleteAnswer>runCommand(ChatSession.Delete::new);
          }
        }
        default -> session.<ChatSession.SessionAnswer>runCommand(ChatSession.Get::new);
      }
    }
    SessionState live = session.getState();
    SessionState recovered = session.restart().state();
    assertThat(recovered).isEqualTo(live);
    assertInvariants(live);
  }

  private static void assertInvariants(SessionState state) {
    assertThat(state.pendingTurns()).as("no turn is left pending once its stream ended").isEmpty();
    List<String> keys = state.turns().stream().map(TurnRecord::idempotencyKey).filter(k -> k != null).toList();
    assertThat(keys).as("an idempotency key is used by one turn only").doesNotHaveDuplicates();
    assertThat(state.turns()).extracting(TurnRecord::turnId).doesNotHaveDuplicates();
    if (state.status() == SessionStatus.CLOSED) {
      assertThat(state.summary().turns()).isEqualTo(state.turns().size());
    }
    if (state.status() == SessionStatus.DELETED) {
      assertThat(state.turns()).isEmpty();
    }
    long completed = state.turns().stream().filter(t -> t.status() == TurnStatus.COMPLETED).count();
    if (completed > 0) {
      assertThat(state.narrativeState().path("completed_turns").asLong()).isEqualTo(completed);
    }
  }
}
