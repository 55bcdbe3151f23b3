package dev.colloquy.persistence.agent;

import dev.colloquy.engine.agent.WebhookOutbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The {@code webhook_outbox} table. A lease marks due rows for one node with {@code FOR UPDATE SKIP
 * LOCKED}, so nodes never take the same webhook while a lease runs; a node that dies leaves its
 * leases to expire and the webhooks to be taken again.
 */
public final class JdbcWebhookOutbox implements WebhookOutbox {

  /** The longest error text kept: enough to say why, never a whole response. */
  static final int MAX_ERROR = 500;

  private final DataSource dataSource;

  public JdbcWebhookOutbox(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public List<Pending> lease(int max, Duration lease) {
    List<Pending> leased = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement update = connection.prepareStatement("""
            UPDATE webhook_outbox SET locked_until = now() + CAST(? AS INTERVAL)
            WHERE webhook_id IN (
              SELECT webhook_id FROM webhook_outbox
              WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
              ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING webhook_id, tenant_id, session_id, event_type, payload, attempts""")) {
      update.setString(1, lease.toMillis() + " milliseconds");
      update.setInt(2, max);
      try (ResultSet rows = update.executeQuery()) {
        while (rows.next()) {
          leased.add(new Pending(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
              rows.getString(5), rows.getInt(6)));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot lease webhooks from the outbox", e);
    }
    return leased;
  }

  @Override
  public void delivered(String webhookId, int attempts) {
    execute("""
        UPDATE webhook_outbox SET status = 'delivered', attempts = ?, delivered_at = now(), locked_until = NULL,
          last_error = NULL WHERE webhook_id = ?""", attempts, webhookId);
  }

  @Override
  public void retryAt(String webhookId, int attempts, Instant nextAttempt, String error) {
    execute("""
        UPDATE webhook_outbox SET attempts = ?, next_attempt_at = ?, locked_until = NULL, last_error = ?
        WHERE webhook_id = ?""", attempts, nextAttempt.atOffset(ZoneOffset.UTC), truncate(error), webhookId);
  }

  /**
   * Given up, and (seed 004 §7.4) recorded in billing_events as escalation_webhook_failed, in one
   * transaction: one record per webhook given up, however many a session has.
   */
  @Override
  public void failed(Pending webhook, int attempts, String error) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        execute(connection, """
            UPDATE webhook_outbox SET status = 'failed', attempts = ?, locked_until = NULL, last_error = ?
            WHERE webhook_id = ?""", attempts, truncate(error), webhook.webhookId());
        execute(connection, """
            INSERT INTO billing_events (session_id, kind, occurrence, tenant_id, occurred_at, reason)
            VALUES (?, 'escalation_webhook_failed', ?, ?, now(), ?) ON CONFLICT (session_id, kind, occurrence) DO NOTHING""",
            webhook.sessionId(), webhook.webhookId(), webhook.tenantId(), truncate(error));
        connection.commit();
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot record the failure of webhook " + webhook.webhookId(), e);
    }
  }

  private void execute(String sql, Object... parameters) {
    try (Connection connection = dataSource.getConnection()) {
      execute(connection, sql, parameters);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot update the webhook outbox", e);
    }
  }

  private static void execute(Connection connection, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      statement.executeUpdate();
    }
  }

  private static String truncate(String error) {
    return error == null || error.length() <= MAX_ERROR ? error : error.substring(0, MAX_ERROR);
  }
}
