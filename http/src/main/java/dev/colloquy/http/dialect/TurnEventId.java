package dev.colloquy.http.dialect;

import dev.colloquy.engine.domain.ErrorCode;
import java.util.Optional;

/**
 * The SSE id of a frame of a dialect whose request does not name its turn (the Writing Room's
 * {@code POST /chat/stream}, the Support agent's message stream): {@code <turn_id>:<number>}. Sent
 * back as {@code Last-Event-ID}, it names the turn to resume and the last frame the client saw.
 */
record TurnEventId(String turnId, long number) {

  String value() {
    return turnId + ":" + number;
  }

  /** The id of a Last-Event-ID header, or a refusal naming what is wrong with it. */
  static Optional<TurnEventId> parse(Optional<String> header) {
    if (header.isEmpty() || header.get().isBlank()) {
      return Optional.empty();
    }
    String value = header.get().strip();
    int colon = value.lastIndexOf(':');
    if (colon > 0 && DialectBodies.isUuid(value.substring(0, colon))) {
      try {
        long number = Long.parseLong(value.substring(colon + 1));
        if (number >= 0) {
          return Optional.of(new TurnEventId(value.substring(0, colon).toLowerCase(), number));
        }
      } catch (NumberFormatException e) {
        // refused below
      }
    }
    throw new DialectRefusal(ErrorCode.INVALID_LAST_EVENT_ID,
        "Last-Event-ID must be an id this stream sent: <turn_id>:<number>");
  }
}
