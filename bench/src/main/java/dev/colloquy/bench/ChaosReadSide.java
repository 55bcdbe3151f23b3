package dev.colloquy.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The read side of the chaos run's node as text, to hold it against a rebuild from the journal: the
 * derived tables (sessions, messages, session_usage), every row, in a fixed order.
 */
final class ChaosReadSide {

  private static final List<String> DUMPS = List.of(
      "SELECT session_id, tenant_id, user_id, status, title, created_at, last_activity_at, closed_at, close_reason,"
          + " turn_count, prompt_tokens, completion_tokens, cost_usd FROM sessions ORDER BY session_id",
      "SELECT message_id, session_id, turn_id, role, content, provider, model, created_at, turn_ordinal, answer_index,"
          + " run_id, citations::text FROM messages ORDER BY message_id",
      "SELECT session_id, provider, model, prompt_tokens, completion_tokens, cost_usd FROM session_usage"
          + " ORDER BY session_id, provider, model");

  private ChaosReadSide() {}

  /** Waits until the projection has handled every tagged event: each tag's offset is its last event. */
  static void awaitCaughtUp(ChaosNode node, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!caughtUp(node)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the read side did not catch up with the journal within " + timeout);
      }
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }

  private static boolean caughtUp(ChaosNode node) throws Exception {
    try (Connection connection = node.database(); Statement statement = connection.createStatement();
        ResultSet behind = statement.executeQuery("""
            SELECT count(*) FROM (SELECT tag, max(event_id) AS last FROM event_tag GROUP BY tag) tags
            LEFT JOIN pekko_projection_offset_store o
              ON o.projection_name = 'sessions' AND o.projection_key = tags.tag
            WHERE o.current_offset IS NULL OR CAST(o.current_offset AS BIGINT) < tags.last""")) {
      behind.next();
      return behind.getLong(1) == 0;
    }
  }

  static List<String> dump(ChaosNode node) throws Exception {
    List<String> lines = new ArrayList<>();
    try (Connection connection = node.database(); Statement statement = connection.createStatement()) {
      for (String sql : DUMPS) {
        try (ResultSet rows = statement.executeQuery(sql)) {
          ResultSetMetaData columns = rows.getMetaData();
          while (rows.next()) {
            StringBuilder line = new StringBuilder(columns.getTableName(1)).append(':');
            for (int c = 1; c <= columns.getColumnCount(); c++) {
              line.append(' ').append(rows.getString(c));
            }
            lines.add(line.toString());
          }
        }
      }
    }
    return lines;
  }
}
