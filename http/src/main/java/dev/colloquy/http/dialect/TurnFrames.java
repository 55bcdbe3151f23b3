package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.TurnFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * A turn's canonical frames turned into a dialect's own. A dialect may reorder (the Writing Room
 * sends citations after the tokens), so its frames are numbered 1, 2, 3 … in the order they are
 * sent, always from the turn's first canonical frame: a resumed stream is the same translation of the
 * same frames (a finished turn is replayed with the very frames its live stream had), with the
 * frames up to the number the client last saw left out.
 */
final class TurnFrames {

  /** What a dialect makes of each canonical frame, in order; one instance per stream, as it may keep state. */
  interface Translator<T> {

    List<T> next(TurnFrame frame);
  }

  /** A dialect frame and its number in the turn. */
  record Numbered<T>(long number, T frame) {}

  private TurnFrames() {}

  /** The dialect frames of {@code frames} (which must start at the turn's first) after number {@code afterNumber}. */
  static <T> Source<Numbered<T>, NotUsed> after(Source<TurnFrame, NotUsed> frames, Supplier<Translator<T>> translator,
      long afterNumber) {
    return frames.statefulMapConcat(() -> {
      Translator<T> translate = translator.get();
      long[] number = {0};
      return frame -> {
        List<Numbered<T>> numbered = new ArrayList<>();
        for (T translated : translate.next(frame)) {
          long n = ++number[0];
          if (n > afterNumber) {
            numbered.add(new Numbered<>(n, translated));
          }
        }
        return numbered;
      };
    });
  }

  /** The same for the frames of a finished turn, all at hand. */
  static <T> List<Numbered<T>> after(List<TurnFrame> frames, Translator<T> translate, long afterNumber) {
    List<Numbered<T>> numbered = new ArrayList<>();
    long number = 0;
    for (TurnFrame frame : frames) {
      for (T translated : translate.next(frame)) {
        if (++number > afterNumber) {
          numbered.add(new Numbered<>(number, translated));
        }
      }
    }
    return numbered;
  }
}
