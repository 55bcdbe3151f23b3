package dev.colloquy.engine.domain;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.colloquy.engine.CborSerializable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The place of stream frames in a finished turn, so the turn can be replayed with the very ids the
 * live stream had. One mark stands for one frame, except a {@link Kind#TOKEN} mark, which stands for
 * a run of consecutive token frames of one run: their lengths in that run's text, in order.
 *
 * <p>Stored as an array without field names, {@code [kind, run, length]}, whose last element is the
 * array of lengths for tokens. Journals written before tokens were grouped hold one {@code TOKEN}
 * mark per token with a single length; {@link #grouped} reads them into the grouped form.
 */
@JsonSerialize(using = FrameMark.Writer.class)
@JsonDeserialize(using = FrameMark.Reader.class)
public record FrameMark(Kind kind, int run, int[] lengths) implements CborSerializable {

  public enum Kind {
    STARTED,
    RETRIEVAL,
    GAP,
    TOKEN,
    RUN_COMPLETED,
    RUN_FAILED,
    INTENT,
    ESCALATION,
    TOOL_CALLED,
    TOOL_RESULT,
    /**
     * Not a frame: the frames after this point were streamed but never journaled (their node
     * crashed after its last checkpoint), so the turn's terminal frame takes
     * {@link TurnFrame#LOST_LAYOUT_TERMINAL_ID}, above any id a client may have seen.
     */
    LOST
  }

  private static final int[] NONE = new int[0];

  public FrameMark {
    lengths = lengths.length == 0 ? NONE : lengths.clone();
  }

  /** A frame of the turn as a whole (started, retrieval, gap). */
  public static FrameMark of(Kind kind) {
    return new FrameMark(kind, -1, NONE);
  }

  /** A frame of one run (completed, failed). */
  public static FrameMark ofRun(Kind kind, int run) {
    return new FrameMark(kind, run, NONE);
  }

  /** Consecutive token frames of one run, by their lengths. */
  public static FrameMark tokens(int run, int... lengths) {
    return new FrameMark(Kind.TOKEN, run, lengths);
  }

  @Override
  public int[] lengths() {
    return lengths.clone();
  }

  /** How many frames the mark stands for. */
  public int frames() {
    return kind == Kind.TOKEN ? lengths.length : 1;
  }

  /** The layout with consecutive token marks of the same run merged into one. */
  public static List<FrameMark> grouped(List<FrameMark> marks) {
    List<FrameMark> grouped = new ArrayList<>(marks.size());
    for (FrameMark mark : marks) {
      FrameMark last = grouped.isEmpty() ? null : grouped.getLast();
      if (mark.kind == Kind.TOKEN && last != null && last.kind == Kind.TOKEN && last.run == mark.run) {
        int[] merged = Arrays.copyOf(last.lengths, last.lengths.length + mark.lengths.length);
        System.arraycopy(mark.lengths, 0, merged, last.lengths.length, mark.lengths.length);
        grouped.set(grouped.size() - 1, new FrameMark(Kind.TOKEN, mark.run, merged));
      } else {
        grouped.add(mark);
      }
    }
    return grouped;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FrameMark mark && kind == mark.kind && run == mark.run
        && Arrays.equals(lengths, mark.lengths);
  }

  @Override
  public int hashCode() {
    return (kind.hashCode() * 31 + run) * 31 + Arrays.hashCode(lengths);
  }

  @Override
  public String toString() {
    return "FrameMark[" + kind + ", " + run + ", " + Arrays.toString(lengths) + "]";
  }

  /** {@code [kind, run, 0]}, or {@code [kind, run, [lengths]]} for tokens. */
  static final class Writer extends StdSerializer<FrameMark> {
    Writer() {
      super(FrameMark.class);
    }

    @Override
    public void serialize(FrameMark mark, JsonGenerator json, SerializerProvider provider) throws IOException {
      json.writeStartArray();
      json.writeString(mark.kind.name());
      json.writeNumber(mark.run);
      if (mark.kind == Kind.TOKEN) {
        json.writeArray(mark.lengths, 0, mark.lengths.length);
      } else {
        json.writeNumber(0);
      }
      json.writeEndArray();
    }
  }

  /** Reads both forms: a token mark's last element is one length (before grouping) or the array of lengths. */
  static final class Reader extends StdDeserializer<FrameMark> {
    Reader() {
      super(FrameMark.class);
    }

    @Override
    public FrameMark deserialize(JsonParser json, DeserializationContext context) throws IOException {
      if (json.currentToken() != JsonToken.START_ARRAY) {
        return (FrameMark) context.handleUnexpectedToken(FrameMark.class, json);
      }
      json.nextToken();
      Kind kind = Kind.valueOf(json.getText());
      json.nextToken();
      int run = json.getIntValue();
      int[] lengths = NONE;
      JsonToken last = json.nextToken();
      if (last == JsonToken.START_ARRAY) {
        List<Integer> read = new ArrayList<>();
        while (json.nextToken() != JsonToken.END_ARRAY) {
          read.add(json.getIntValue());
        }
        lengths = read.stream().mapToInt(Integer::intValue).toArray();
      } else if (kind == Kind.TOKEN) {
        lengths = new int[] {json.getIntValue()};
      }
      while (json.nextToken() != JsonToken.END_ARRAY) {
        json.skipChildren();
      }
      return new FrameMark(kind, run, lengths);
    }
  }
}
