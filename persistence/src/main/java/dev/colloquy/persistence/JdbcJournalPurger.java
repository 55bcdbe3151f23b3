package dev.colloquy.persistence;

import dev.colloquy.engine.JournalPurger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes a deleted session's events before its deletion marker, and its snapshots, in one
 * transaction. Only a prefix goes: the marker stays, so the id is never reused and no gap opens in
 * the middle of the journal (pekko-persistence-jdbc #516). It waits until the read side has
 * projected the deletion (so every event before it): a session used and deleted within the
 * projection's lag would otherwise never reach the billing records.
 */
public final class JdbcJournalPurger implements JournalPurger {

  private static final Logger log = LoggerFactory.getLogger(JdbcJournalPurger.class);
  private static final Duration PROJECTED_WAIT = Duration.ofMinutes(2);
  private static final Duration PROJECTED_POLL = Duration.ofMillis(250);

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
    awaitProjected(persistenceId.substring(persistenceId.indexOf('|') + 1));
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

  /** Waits until the read side shows the session deleted, or gives up after a while and purges anyway. */
  private void awaitProjected(String sessionId) {
    long deadline = System.nanoTime() + PROJECTED_WAIT.toNanos();
    while (!projectedAsDeleted(sessionId)) {
      if (System.nanoTime() > deadline) {
        log.warn("The read side has not projected the deletion of session {} after {}; purging its journal anyway",
            sessionId, PROJECTED_WAIT);
        return;
      }
      LockSupport.parkNanos(PROJECTED_POLL.toNanos());
    }
  }

  private boolean projectedAsDeleted(String sessionId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement status = connection.prepareStatement("SELECT status FROM sessions WHERE session_id = ?")) {
      status.setString(1, sessionId);
      try (ResultSet row = status.executeQuery()) {
        return row.next() && "deleted".equals(row.getString(1));
      }
    } catch (SQLException e) {
      log.warn("Cannot read whether session {} is projected as deleted: {}", sessionId, e.getClass().getSimpleName());
      return false;
    }
  }
}
