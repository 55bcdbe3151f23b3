package dev.colloquy.http;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnFrame;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.pekko.util.ByteString;

/**
 * Writes turn frames as Server-Sent Events. The data is always one line of JSON: the serializer
 * escapes CR and LF, so nothing in model output can start a new field or end the event.
 */
public final class SseFraming {

  public static final ByteString KEEP_ALIVE = ByteString.fromString(": keep-alive\n\n");

  private SseFraming() {}

  public static ByteString canonical(TurnFrame frame) {
    return event(CanonicalEvents.name(frame.event()), frame.id(), Json.write(CanonicalEvents.data(frame)));
  }

  static ByteString event(String name, long id, String jsonData) {
    if (jsonData.indexOf('\n') >= 0 || jsonData.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("SSE data must be one line");
    }
    return ByteString.fromString("event: " + name + "\nid: " + id + "\ndata: " + jsonData + "\n\n");
  }

  /**
   * Writes the frames of one stream. A token event is the same bytes as {@link #canonical} gives, but
   * everything around its text (event name, the session, turn, trace and run ids) is encoded once per
   * run, so a token costs the escaping of its own text; other frames go through the JSON mapper.
   */
  static final class Writer {

    private static final byte[] TOKEN_EVENT = "event: token\nid: ".getBytes(StandardCharsets.UTF_8);
    private static final JsonStringEncoder QUOTE = JsonStringEncoder.getInstance();

    private String turnId;
    private String runId;
    private byte[] beforeText;
    private byte[] afterText;

    ByteString write(TurnFrame frame) {
      if (frame.event() instanceof StreamEvent.Token token) {
        try {
          return token(frame, token);
        } catch (IllegalArgumentException unpaired) {
          // A lone surrogate: the mapper says what becomes of it.
          return canonical(frame);
        }
      }
      return canonical(frame);
    }

    private ByteString token(TurnFrame frame, StreamEvent.Token token) {
      if (beforeText == null || !Objects.equals(runId, token.runId()) || !Objects.equals(turnId, frame.turnId())) {
        turnId = frame.turnId();
        runId = token.runId();
        beforeText = ("\ndata: {\"session_id\":" + quoted(frame.sessionId()) + ",\"turn_id\":" + quoted(frame.turnId())
            + ",\"trace_id\":" + quoted(frame.traceId()) + ",\"text\":\"").getBytes(StandardCharsets.UTF_8);
        afterText = ("\",\"run_id\":" + quoted(token.runId()) + "}\n\n").getBytes(StandardCharsets.UTF_8);
      }
      // One array of the event's exact size, handed to the ByteString without another copy: a token
      // is the most frequent frame, and a builder would gather its five parts and copy them again.
      byte[] id = Long.toString(frame.id()).getBytes(StandardCharsets.US_ASCII);
      byte[] text = QUOTE.quoteAsUTF8(token.text());
      byte[] event = new byte[TOKEN_EVENT.length + id.length + beforeText.length + text.length + afterText.length];
      int at = put(TOKEN_EVENT, event, 0);
      at = put(id, event, at);
      at = put(beforeText, event, at);
      at = put(text, event, at);
      put(afterText, event, at);
      return ByteString.fromArrayUnsafe(event);
    }

    private static int put(byte[] part, byte[] event, int at) {
      System.arraycopy(part, 0, event, at, part.length);
      return at + part.length;
    }

    private static String quoted(String value) {
      return value == null ? "null" : "\"" + new String(QUOTE.quoteAsString(value)) + "\"";
    }
  }
}
