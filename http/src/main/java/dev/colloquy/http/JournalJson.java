package dev.colloquy.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.session.SessionState;
import dev.colloquy.persistence.JournalEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's journal as JSON: every event with its sequence number, write time and type, and the
 * state rebuilt by applying them in order, exactly as the entity does on recovery.
 */
public final class JournalJson {

  private JournalJson() {}

  record Journal(String sessionId, List<Entry> events, long lastSequenceNr, Record state) {}

  /** An event as the journal stores it, with its type name. */
  record Entry(long sequenceNr, String writtenAt, String type, JsonNode event) {}

  /** The journal as a JSON tree, for tools that print or inspect it. */
  public static ObjectNode body(String sessionId, List<JournalEntry> entries) {
    return Json.MAPPER.valueToTree(toApi(sessionId, entries));
  }

  static Journal toApi(String sessionId, List<JournalEntry> entries) {
    List<Entry> events = new ArrayList<>();
    SessionState state = SessionState.empty(sessionId);
    for (JournalEntry entry : entries) {
      events.add(new Entry(entry.sequenceNr(), entry.writtenAt().toString(),
          entry.event().getClass().getSimpleName(), Json.MAPPER.valueToTree(entry.event())));
      state = state.apply(entry.event());
    }
    long last = entries.isEmpty() ? 0 : entries.getLast().sequenceNr();
    return new Journal(sessionId, events, last, SessionRoutes.stateToApi(state));
  }
}
