package dev.colloquy.http;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnFrame;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.pekko.util.ByteString;
import org.apache.pekko.util.ByteStringBuilder;

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
      ByteStringBuilder bytes = new ByteStringBuilder();
      bytes.putBytes(TOKEN_EVENT);
      bytes.putBytes(Long.toString(frame.id()).getBytes(StandardCharsets.US_ASCII));
      bytes.putBytes(beforeText);
      bytes.putBytes(QUOTE.quoteAsUTF8(token.text()));
      bytes.putBytes(afterText);
      return bytes.result();
    }

    private static String quoted(String value) {
      return value == null ? "null" : "\"" + new String(QUOTE.quoteAsString(value)) + "\"";
    }
  }
}
