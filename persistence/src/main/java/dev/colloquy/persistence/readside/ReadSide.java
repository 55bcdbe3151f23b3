package dev.colloquy.persistence.readside;

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

  static final List<String> TABLES = List.of("sessions", "session_usage", "messages", "billing_events");

  static final String TABLES_SCRIPT = "db/read-side/tables.sql";

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
        for (String table : TABLES) {
          statement.execute("DROP TABLE IF EXISTS " + table);
        }
        statement.execute(tablesScript());
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

  static String tablesScript() {
    try (InputStream in = ReadSide.class.getClassLoader().getResourceAsStream(TABLES_SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(TABLES_SCRIPT + " is missing from the classpath");
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
