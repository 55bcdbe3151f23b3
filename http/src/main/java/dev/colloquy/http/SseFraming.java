package dev.colloquy.http;

import dev.colloquy.engine.domain.TurnFrame;
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
}
