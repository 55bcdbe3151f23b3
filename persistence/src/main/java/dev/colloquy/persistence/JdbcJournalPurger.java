package dev.colloquy.persistence;

import dev.colloquy.engine.session.JournalPurger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes a deleted session's events before its deletion marker, and its snapshots, in one
 * transaction. Only a prefix goes: the marker stays, so the id is never reused and no gap opens in
 * the middle of the journal (pekko-persistence-jdbc #516).
 */
public final class JdbcJournalPurger implements JournalPurger {

  private static final Logger log = LoggerFactory.getLogger(JdbcJournalPurger.class);

  private final DataSource dataSource;
  private final Executor executor;

  public JdbcJournalPurger(DataSource dataSource, Executor executor) {
    this.dataSource = dataSource;
    this.executor = executor;
  }

  @Override
  public CompletionStage<Void> purge(String persistenceId, long beforeSequenceNr) {
    return CompletableFuture.runAsync(() -> purgeNow(persistenceId, beforeSequenceNr), executor)
        .whenComplete((done, error) -> {
          if (error != null) {
            log.error("Purging the journal of {} failed", persistenceId, error);
          }
        });
  }

  private void purgeNow(String persistenceId, long beforeSequenceNr) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try (PreparedStatement events = connection.prepareStatement(
              "DELETE FROM event_journal WHERE persistence_id = ? AND sequence_number < ?");
          PreparedStatement snapshots = connection.prepareStatement("DELETE FROM snapshot WHERE persistence_id = ?")) {
        events.setString(1, persistenceId);
        events.setLong(2, beforeSequenceNr);
        events.executeUpdate();
        snapshots.setString(1, persistenceId);
        snapshots.executeUpdate();
        connection.commit();
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot purge the journal of " + persistenceId, e);
    }
  }
}
