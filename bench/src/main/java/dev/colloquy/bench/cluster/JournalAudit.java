package dev.colloquy.bench.cluster;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * What the journal of a session says about how it was written: its sequence numbers run 1, 2, 3 …
 * without a gap, and its writers (each incarnation of the entity writes with its own id) follow one
 * another and never come back: no writer wrote again after another had taken over.
 */
public final class JournalAudit {

  /** One session's journal, as audited. */
  public record Finding(String sessionId, long events, int writers, List<String> problems) {
    public boolean clean() {
      return problems.isEmpty();
    }
  }

  private JournalAudit() {}

  public static Finding audit(Connection connection, String sessionId) throws Exception {
    List<Long> sequence = new ArrayList<>();
    List<String> writers = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(
        "SELECT sequence_number, writer FROM event_journal WHERE persistence_id = ? ORDER BY sequence_number")) {
      select.setString(1, "ChatSession|" + sessionId);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          sequence.add(rows.getLong(1));
          writers.add(rows.getString(2));
        }
      }
    }
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < sequence.size(); i++) {
      if (sequence.get(i) != i + 1) {
        problems.add("sequence number " + sequence.get(i) + " at position " + (i + 1) + " (a gap)");
        break;
      }
    }
    List<String> seen = new ArrayList<>();
    for (String writer : writers) {
      if (seen.isEmpty() || !seen.getLast().equals(writer)) {
        if (seen.contains(writer)) {
          problems.add("writer " + writer + " wrote again after " + seen.getLast() + " had taken over");
        }
        seen.add(writer);
      }
    }
    return new Finding(sessionId, sequence.size(), seen.size(), problems);
  }
}
