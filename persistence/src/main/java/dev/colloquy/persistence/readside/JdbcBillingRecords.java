package dev.colloquy.persistence.readside;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A tenant's billing records from the {@code billing_events} read table, oldest first. Like every
 * read table it follows the journal by a moment (the projection's poll interval).
 */
public final class JdbcBillingRecords {

  private final DataSource dataSource;

  public JdbcBillingRecords(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Blocks on the database: call it from a pool meant for blocking work. */
  public List<BillingRecord> list(String tenantId, BillingPeriod period) {
    String sql = "SELECT * FROM billing_events WHERE tenant_id = ?"
        + (period.from().isPresent() ? " AND occurred_at >= ?" : "")
        + (period.until().isPresent() ? " AND occurred_at < ?" : "")
        + " ORDER BY occurred_at, session_id, kind, occurrence";
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      int i = 1;
      query.setString(i++, tenantId);
      if (period.from().isPresent()) {
        query.setObject(i++, period.from().get().atOffset(ZoneOffset.UTC));
      }
      if (period.until().isPresent()) {
        query.setObject(i, period.until().get().atOffset(ZoneOffset.UTC));
      }
      List<BillingRecord> records = new ArrayList<>();
      try (ResultSet rs = query.executeQuery()) {
        while (rs.next()) {
          records.add(new BillingRecord(rs.getString("session_id"), rs.getString("kind"), rs.getString("tenant_id"),
              rs.getObject("occurred_at", OffsetDateTime.class).toInstant(), rs.getString("reason"),
              rs.getObject("turns", Integer.class), rs.getObject("completed_turns", Integer.class),
              rs.getObject("prompt_tokens", Long.class), rs.getObject("completion_tokens", Long.class),
              rs.getObject("cost_usd", Double.class), rs.getObject("duration_ms", Long.class),
              rs.getString("usage_by_model")));
        }
      }
      return records;
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read the billing records", e);
    }
  }
}
