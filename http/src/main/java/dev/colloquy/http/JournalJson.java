package dev.colloquy.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.session.SessionState;
import dev.colloquy.persistence.JournalEntry;
import java.util.List;

/**
 * A session's journal as JSON: every event with its sequence number, write time and type, and the
 * state rebuilt by applying them in order, exactly as the entity does on recovery.
 */
public final class JournalJson {

  private JournalJson() {}

  public static ObjectNode body(String sessionId, List<JournalEntry> entries) {
    ObjectNode body = Json.MAPPER.createObjectNode().put("session_id", sessionId);
    ArrayNode events = body.putArray("events");
    SessionState state = SessionState.empty(sessionId);
    for (JournalEntry entry : entries) {
      ObjectNode node = events.addObject()
          .put("sequence_nr", entry.sequenceNr())
          .put("written_at", entry.writtenAt().toString())
          .put("type", entry.event().getClass().getSimpleName());
      node.set("event", Json.MAPPER.valueToTree(entry.event()));
      state = state.apply(entry.event());
    }
    body.put("last_sequence_nr", entries.isEmpty() ? 0 : entries.getLast().sequenceNr());
    body.set("state", SessionRoutes.stateJson(state));
    return body;
  }
}
