package dev.colloquy.persistence.readside;

import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionTags;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read tables as a whole. They are projections of the journal, so they can always be thrown
 * away: {@link #rebuild} drops them, creates them empty and forgets the projection's offsets, and
 * the projection then refills them from the first event. Run it only while no projection runs
 * (at start, before the projection starts, or from the command line with the server stopped).
 */
public final class ReadSide {

  private static final Logger log = LoggerFactory.getLogger(ReadSide.class);

  /** The projection whose offsets belong to these tables. */
  public static final String PROJECTION_NAME = "sessions";

  static final List<String> TABLES =
      List.of("sessions", "session_usage", "messages", "billing_events", "tenant_monthly_tokens",
          "tenant_open_sessions");
  /**
   * What a rebuild drops and refills from the journal. Billing records are kept (and refilled only
   * where missing, since they are keyed): a deleted session's journal is purged, so its records could
   * not be derived again.
   */
  static final List<String> DERIVED_TABLES =
      List.of("sessions", "session_usage", "messages", "tenant_monthly_tokens", "tenant_open_sessions");

  /**
   * The migrations that create the read side, run again by a rebuild: their statements are all
   * {@code IF NOT EXISTS} (or {@code IF EXISTS}), so on a rebuild they create the dropped tables and
   * leave the others. A later migration that changes a read table joins this list. (V3's header still names a separate
   * tables script, since removed: an applied migration's text cannot change.)
   */
  static final List<String> READ_SIDE_MIGRATIONS =
      List.of("db/migration/V3__read_side.sql", "db/migration/V5__session_users.sql",
          "db/migration/V20__session_characters.sql", "db/migration/V80__agent_read_side.sql",
          "db/migration/V81__webhook_outbox.sql", "db/migration/V87__billing_every_escalation.sql",
          "db/migration/V88__message_positions.sql", "db/migration/V90__session_stretches.sql",
          "db/migration/V91__read_side_lookups.sql",
          "db/migration/V92__tenant_monthly_tokens.sql", "db/migration/V94__messages_without_time_index.sql",
          "db/migration/V95__tenant_open_sessions.sql");

  /** The persistence ids of session entities, as a LIKE pattern. */
  static final String SESSION_PERSISTENCE_IDS = ChatSession.ENTITY_KEY.name() + PersistenceId.DefaultSeparator() + "%";

  private ReadSide() {}

  /** Rebuilds the read tables when one of them is missing; true when it did. */
  public static boolean repairIfDropped(DataSource dataSource) {
    List<String> missing = TABLES.stream().filter(table -> !exists(dataSource, table)).toList();
    if (missing.isEmpty()) {
      return false;
    }
    log.warn("Read tables {} are missing: rebuilding the read side from the journal", missing);
    rebuild(dataSource);
    return true;
  }

  /** Drops and recreates every read table and resets the projection's offsets, in one transaction. */
  public static void rebuild(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        for (String table : DERIVED_TABLES) {
          statement.execute("DROP TABLE IF EXISTS " + table);
        }
        for (String migration : READ_SIDE_MIGRATIONS) {
          statement.execute(script(migration));
        }
        statement.execute("DELETE FROM pekko_projection_offset_store WHERE projection_name = '" + PROJECTION_NAME + "'");
        statement.execute("DELETE FROM pekko_projection_management WHERE projection_name = '" + PROJECTION_NAME + "'");
        connection.commit();
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot rebuild the read tables", e);
    }
  }

  /**
   * Tags the session events that carry no tag, such as those written before sessions tagged their
   * events, so that the projection sees them. Only needed when the projection starts from the
   * beginning (no stored offsets); it does nothing otherwise.
   */
  public static int tagUntaggedSessionEvents(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      if (hasOffsets(connection)) {
        return 0;
      }
      connection.setAutoCommit(false);
      List<String> persistenceIds = new java.util.ArrayList<>();
      try (java.sql.PreparedStatement query = connection.prepareStatement("""
              SELECT DISTINCT j.persistence_id FROM event_journal j
              WHERE j.persistence_id LIKE ?
                AND NOT EXISTS (SELECT 1 FROM event_tag t WHERE t.event_id = j.ordering)""")) {
        query.setString(1, SESSION_PERSISTENCE_IDS);
        try (ResultSet untagged = query.executeQuery()) {
          while (untagged.next()) {
            persistenceIds.add(untagged.getString(1));
          }
        }
      }
      int tagged = 0;
      try (java.sql.PreparedStatement insert = connection.prepareStatement("""
          INSERT INTO event_tag (event_id, tag)
          SELECT j.ordering, ? FROM event_journal j WHERE j.persistence_id = ?
            AND NOT EXISTS (SELECT 1 FROM event_tag t WHERE t.event_id = j.ordering)""")) {
        for (String persistenceId : persistenceIds) {
          insert.setString(1, SessionTags.of(PersistenceId.extractEntityId(persistenceId)));
          insert.setString(2, persistenceId);
          tagged += insert.executeUpdate();
        }
      }
      connection.commit();
      if (tagged > 0) {
        log.info("Tagged {} untagged events of {} sessions for the read side", tagged, persistenceIds.size());
      }
      return tagged;
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot tag the journal's session events", e);
    }
  }

  private static boolean hasOffsets(Connection connection) throws SQLException {
    try (java.sql.PreparedStatement query = connection.prepareStatement(
        "SELECT 1 FROM pekko_projection_offset_store WHERE projection_name = ? LIMIT 1")) {
      query.setString(1, PROJECTION_NAME);
      try (ResultSet rs = query.executeQuery()) {
        return rs.next();
      }
    }
  }

  static String script(String resource) {
    try (InputStream in = ReadSide.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean exists(DataSource dataSource, String table) {
    try (Connection connection = dataSource.getConnection()) {
      DatabaseMetaData meta = connection.getMetaData();
      try (ResultSet tables = meta.getTables(null, connection.getSchema(), table, new String[] {"TABLE"})) {
        return tables.next();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot inspect the read tables", e);
    }
  }
}
