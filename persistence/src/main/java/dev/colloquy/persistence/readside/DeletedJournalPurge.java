package dev.colloquy.persistence.readside;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Removes what a deleted session leaves in the journal: every event before its deletion marker and
 * every snapshot. The projection runs it in the transaction that records the deletion in the read
 * tables and moves its offset, so it happens exactly once and survives any crash: a node killed
 * after it answered the delete purges when the projection reaches the marker after the restart.
 * Only a prefix goes: the marker stays, so the id is never reused and no gap opens in the middle of
 * the journal (pekko-persistence-jdbc #516). By the time the projection sees the marker it has
 * projected every event before it, so billing has them.
 */
final class DeletedJournalPurge {

  private DeletedJournalPurge() {}

  static void before(Connection connection, String persistenceId, long markerSequenceNr) throws SQLException {
    try (PreparedStatement events = connection.prepareStatement(
            "DELETE FROM event_journal WHERE persistence_id = ? AND sequence_number < ?");
        PreparedStatement snapshots = connection.prepareStatement("DELETE FROM snapshot WHERE persistence_id = ?")) {
      events.setString(1, persistenceId);
      events.setLong(2, markerSequenceNr);
      events.executeUpdate();
      snapshots.setString(1, persistenceId);
      snapshots.executeUpdate();
    }
  }
}
