package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnFrame;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;

/** Reads a transcript's live stream into a probe, as a client's stream would; {@link #leave()} cancels it. */
final class TranscriptReader {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final TestProbe<TurnFrame> frames;
  private final UniqueKillSwitch connection;

  private TranscriptReader(TestProbe<TurnFrame> frames, UniqueKillSwitch connection) {
    this.frames = frames;
    this.connection = connection;
  }

  static TranscriptReader read(ActorTestKit testKit, Transcript transcript, long afterId) {
    TestProbe<TurnFrame> frames = testKit.createTestProbe();
    UniqueKillSwitch connection = transcript.frames(afterId)
        .viaMat(KillSwitches.single(), Keep.right())
        .to(Sink.foreach(frames.getRef()::tell))
        .run(testKit.system());
    return new TranscriptReader(frames, connection);
  }

  TurnFrame next() {
    return frames.expectMessageClass(TurnFrame.class, WAIT);
  }

  StreamEvent nextEvent() {
    return next().event();
  }

  void expectNothing(Duration during) {
    frames.expectNoMessage(during);
  }

  void leave() {
    connection.shutdown();
  }
}
