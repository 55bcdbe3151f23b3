package dev.colloquy.persistence.readside;

import dev.colloquy.engine.tenant.TenantUsage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.YearMonth;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/**
 * A tenant's usage, read from the read tables on {@code executor} (never on the caller's
 * thread). The tables trail the journal by the projection's lag, so a quota may let a few requests
 * past its limit under load; it never refuses one that is within it.
 */
public final class JdbcTenantUsage implements TenantUsage {

  /**
   * The running count the projection keeps (one row per projection slice), so the cost does not grow
   * with the tenant's open sessions.
   */
  static final String OPEN_SESSIONS =
      "SELECT coalesce(sum(open_sessions), 0) FROM tenant_open_sessions WHERE tenant_id = ?";
  static final String MONTHS_TOKENS =
      "SELECT coalesce(sum(tokens), 0) FROM tenant_monthly_tokens WHERE tenant_id = ? AND month = ?";

  private final DataSource dataSource;
  private final Executor executor;

  public JdbcTenantUsage(DataSource dataSource, Executor executor) {
    this.dataSource = dataSource;
    this.executor = executor;
  }

  @Override
  public CompletionStage<Long> openSessions(String tenantId) {
    return CompletableFuture.supplyAsync(() -> count(OPEN_SESSIONS, tenantId, null), executor);
  }

  /**
   * The tokens of the tenant's turns that ended in {@code month}: the running total the projection keeps
   * (one row per projection slice), so the cost does not grow with the tenant's sessions. Turns projected
   * before the total existed count in the month of their session's last activity.
   */
  @Override
  public CompletionStage<Long> tokensUsed(String tenantId, YearMonth month) {
    return CompletableFuture.supplyAsync(() -> count(MONTHS_TOKENS, tenantId, month), executor);
  }

  private long count(String sql, String tenantId, YearMonth month) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, tenantId);
      if (month != null) {
        query.setObject(2, month.atDay(1));
      }
      try (ResultSet rs = query.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read the usage of tenant " + tenantId, e);
    }
  }
}
