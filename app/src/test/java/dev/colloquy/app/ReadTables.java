package dev.colloquy.app;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/** Reads the read side's tables as rows of column name to value, and waits for them to reach a state. */
final class ReadTables {

  private final DataSource dataSource;

  ReadTables(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  List<Map<String, Object>> rows(String sql, Object... parameters) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        query.setObject(i + 1, parameters[i]);
      }
      List<Map<String, Object>> rows = new ArrayList<>();
      try (ResultSet rs = query.executeQuery()) {
        ResultSetMetaData meta = rs.getMetaData();
        while (rs.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int c = 1; c <= meta.getColumnCount(); c++) {
            Object value = rs.getObject(c);
            row.put(meta.getColumnLabel(c), value == null ? null : value instanceof org.postgresql.util.PGobject pg
                ? pg.getValue() : value);
          }
          rows.add(row);
        }
      }
      return rows;
    }
  }

  Map<String, Object> session(String sessionId) throws SQLException {
    List<Map<String, Object>> rows = rows("SELECT * FROM sessions WHERE session_id = ?", sessionId);
    return rows.isEmpty() ? Map.of() : rows.getFirst();
  }

  void execute(String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.createStatement().execute(sql);
    }
  }

  /** Polls until the condition holds; fails with the description after the timeout. */
  static void await(String description, Duration timeout, Callable<Boolean> condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.call()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + timeout + " waiting until " + description);
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
