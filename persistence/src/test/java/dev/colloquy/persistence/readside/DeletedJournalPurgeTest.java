package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Purging a deleted session's journal takes the purged events' tag rows with them (the journal's
 * tags have no foreign key to their events since V89: a trigger removes them), and leaves the tags
 * of the events that stay, the deletion marker's and other sessions', alone.
 */
class DeletedJournalPurgeTest {

  private static EmbeddedPostgres postgres;

  @BeforeAll
  static void migrate() throws Exception {
    postgres = EmbeddedPostgres.start();
    Flyway.configure().dataSource(postgres.getPostgresDatabase()).locations("classpath:db/migration").load().migrate();
  }

  @AfterAll
  static void stop() throws Exception {
    postgres.close();
  }

  @Test
  void aPurgeRemovesThePurgedEventsTagsAndNoOthers() throws SQLException {
    try (Connection connection = postgres.getPostgresDatabase().getConnection()) {
      for (long sequenceNr = 1; sequenceNr <= 3; sequenceNr++) {
        journal(connection, "ChatSession|deleted", sequenceNr, "session-1");
      }
      journal(connection, "ChatSession|kept", 1, "session-2");

      connection.setAutoCommit(false);
      DeletedJournalPurge.before(connection, "ChatSession|deleted", 3);
      connection.commit();

      assertThat(taggedEvents(connection)).containsExactlyInAnyOrder("ChatSession|deleted#3 session-1",
          "ChatSession|kept#1 session-2");
      assertThat(count(connection, "SELECT count(*) FROM event_tag")).isEqualTo(2);
    }
  }

  private static void journal(Connection connection, String persistenceId, long sequenceNr, String tag)
      throws SQLException {
    try (PreparedStatement event = connection.prepareStatement("""
            INSERT INTO event_journal (persistence_id, sequence_number, writer, event_ser_id, event_ser_manifest,
              event_payload) VALUES (?, ?, 'writer', 1, 'm', '\\x00') RETURNING ordering""")) {
      event.setString(1, persistenceId);
      event.setLong(2, sequenceNr);
      try (ResultSet ordering = event.executeQuery()) {
        ordering.next();
        try (PreparedStatement tagRow = connection.prepareStatement("INSERT INTO event_tag (event_id, tag) VALUES (?, ?)")) {
          tagRow.setLong(1, ordering.getLong(1));
          tagRow.setString(2, tag);
          tagRow.executeUpdate();
        }
      }
    }
  }

  private static List<String> taggedEvents(Connection connection) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (PreparedStatement query = connection.prepareStatement("""
            SELECT j.persistence_id, j.sequence_number, t.tag FROM event_tag t JOIN event_journal j ON j.ordering = t.event_id""");
        ResultSet result = query.executeQuery()) {
      while (result.next()) {
        rows.add(result.getString(1) + "#" + result.getLong(2) + " " + result.getString(3));
      }
    }
    return rows;
  }

  private static long count(Connection connection, String sql) throws SQLException {
    try (PreparedStatement query = connection.prepareStatement(sql); ResultSet result = query.executeQuery()) {
      result.next();
      return result.getLong(1);
    }
  }
}
