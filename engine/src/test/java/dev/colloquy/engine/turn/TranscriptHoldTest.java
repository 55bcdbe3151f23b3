package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** A transcript keeping frames back until the frame that must go before them is known. */
class TranscriptHoldTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final List<RunSpec> RUNS = List.of(new RunSpec("r1", "scripted", "m"));
  private static final StreamEvent.IntentRouted INTENT = new StreamEvent.IntentRouted(Intent.CONVERSATIONAL, "en");

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void framesKeptBackReachReadersOnlyAfterTheFrameReleasedBeforeThem() {
    Transcript transcript = new Transcript("s1", "t1", "trace", RUNS);
    TranscriptReader reader = TranscriptReader.read(testKit, transcript, 0);
    transcript.record(new StreamEvent.Started(List.of("r1")));
    assertThat(reader.next().id()).isEqualTo(1);

    transcript.hold();
    transcript.record(new StreamEvent.Retrieved(List.of(), 0.0));
    assertThat(transcript.token(0, "Hi")).isEqualTo(Transcript.TokenTaken.TAKEN);
    assertThat(transcript.token(0, " there")).isEqualTo(Transcript.TokenTaken.TAKEN);
    reader.expectNothing(Duration.ofMillis(300));
    assertThat(transcript.tokensOf(0)).as("the run's text as its tokens come").isEqualTo("Hi there");
    assertThat(transcript.nextId()).as("no id is taken by a frame kept back").isEqualTo(2);

    transcript.releaseHeld(INTENT);

    assertThat(List.of(reader.next(), reader.next(), reader.next(), reader.next()))
        .extracting(TurnFrame::id, TurnFrame::event)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2L, INTENT),
            org.assertj.core.groups.Tuple.tuple(3L, new StreamEvent.Retrieved(List.of(), 0.0)),
            org.assertj.core.groups.Tuple.tuple(4L, new StreamEvent.Token("r1", "Hi")),
            org.assertj.core.groups.Tuple.tuple(5L, new StreamEvent.Token("r1", " there")));
    assertThat(transcript.holding()).isFalse();
    assertThat(transcript.marks()).extracting(FrameMark::kind).containsExactly(FrameMark.Kind.STARTED,
        FrameMark.Kind.INTENT, FrameMark.Kind.RETRIEVAL, FrameMark.Kind.TOKEN);
    assertThat(transcript.marks().getLast().lengths()).containsExactly(2, 6);

    transcript.token(0, "!");
    assertThat(reader.next().event()).as("nothing is kept back after the release").isEqualTo(new StreamEvent.Token("r1", "!"));
  }

  @Test
  void aRunClosedWhileFramesAreKeptBackKeepsTheTokensItTookBeforeAndNoneAfter() {
    Transcript transcript = new Transcript("s1", "t2", "trace", RUNS);
    TranscriptReader reader = TranscriptReader.read(testKit, transcript, 0);
    transcript.hold();
    transcript.token(0, "kept");
    transcript.closeRun(0);
    assertThat(transcript.token(0, "late")).isEqualTo(Transcript.TokenTaken.DROPPED);

    transcript.releaseHeld(INTENT);

    assertThat(reader.nextEvent()).isEqualTo(INTENT);
    assertThat(reader.nextEvent()).isEqualTo(new StreamEvent.Token("r1", "kept"));
    assertThat(transcript.tokensOf(0)).isEqualTo("kept");
  }

  @Test
  void aTurnThatEndsWithFramesKeptBackStreamsNoneOfThem() {
    Transcript transcript = new Transcript("s1", "t3", "trace", RUNS);
    TranscriptReader reader = TranscriptReader.read(testKit, transcript, 0);
    transcript.hold();
    transcript.token(0, "never read");
    transcript.end(new TurnEnding.Cancelled("client"));

    TurnFrame terminal = reader.next();
    assertThat(terminal.id()).isEqualTo(1);
    assertThat(terminal.terminal()).isTrue();
    transcript.releaseHeld(INTENT);
    assertThat(transcript.nextId()).as("nothing recorded after the terminal frame").isEqualTo(1);
  }
}
