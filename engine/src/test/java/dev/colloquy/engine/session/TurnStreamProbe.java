package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.domain.TurnFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * Reads a turn reply's stream the way the HTTP node does, by running its feed, into a probe;
 * {@link #leave()} cancels it like a client that goes away.
 */
final class TurnStreamProbe {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final TestProbe<TurnFrame> frames;
  private final UniqueKillSwitch connection;

  private TurnStreamProbe(TestProbe<TurnFrame> frames, UniqueKillSwitch connection) {
    this.frames = frames;
    this.connection = connection;
  }

  /** Starts reading the stream of a reply that must be a turn reply with a stream. */
  static TurnStreamProbe read(ActorTestKit testKit, ChatSession.TurnAnswer reply) {
    assertThat(reply).isInstanceOf(ChatSession.TurnReply.class);
    ChatSession.TurnReply turn = (ChatSession.TurnReply) reply;
    assertThat(turn.frames()).as("the reply carries a stream").isNotNull();
    TestProbe<TurnFrame> frames = testKit.createTestProbe();
    UniqueKillSwitch connection = turn.frames().getSource()
        .viaMat(KillSwitches.single(), Keep.right())
        .to(Sink.foreach(frames.getRef()::tell))
        .run(testKit.system());
    return new TurnStreamProbe(frames, connection);
  }

  TurnFrame next() {
    return next(WAIT);
  }

  TurnFrame next(Duration wait) {
    return frames.expectMessageClass(TurnFrame.class, wait);
  }

  /** The frames that arrive until none has come for {@code quiet}. */
  List<TurnFrame> untilQuiet(Duration quiet) {
    List<TurnFrame> seen = new ArrayList<>();
    while (true) {
      try {
        seen.add(frames.receiveMessage(quiet));
      } catch (AssertionError none) {
        return seen;
      }
    }
  }

  /** Every frame up to and including the terminal one. */
  List<TurnFrame> untilTerminal() {
    List<TurnFrame> seen = new ArrayList<>();
    TurnFrame frame;
    do {
      frame = next();
      seen.add(frame);
    } while (!frame.terminal());
    return seen;
  }

  void leave() {
    connection.shutdown();
  }
}
