package dev.colloquy.persistence.readside;

import dev.colloquy.engine.tenant.TenantUsage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/**
 * A tenant's usage, read from the {@code sessions} table on {@code executor} (never on the caller's
 * thread). The table trails the journal by the projection's lag, so a quota may let a few requests
 * past its limit under load; it never refuses one that is within it.
 */
public final class JdbcTenantUsage implements TenantUsage {

  private final DataSource dataSource;
  private final Executor executor;

  public JdbcTenantUsage(DataSource dataSource, Executor executor) {
    this.dataSource = dataSource;
    this.executor = executor;
  }

  @Override
  public CompletionStage<Long> openSessions(String tenantId) {
    return CompletableFuture.supplyAsync(() -> count("""
        SELECT count(*) FROM sessions WHERE tenant_id = ? AND status = 'open'""", tenantId, null), executor);
  }

  /**
   * The tokens of the sessions last active in {@code month}. The table keeps a session's totals, not
   * when each token was spent, so a session that spans a month's end counts wholly in the later
   * month: the budget errs towards refusing early, never towards spending more than it allows.
   */
  @Override
  public CompletionStage<Long> tokensUsed(String tenantId, YearMonth month) {
    return CompletableFuture.supplyAsync(() -> count("""
        SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) FROM sessions
        WHERE tenant_id = ? AND last_activity_at >= ? AND last_activity_at < ?""", tenantId, month), executor);
  }

  private long count(String sql, String tenantId, YearMonth month) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, tenantId);
      if (month != null) {
        query.setObject(2, month.atDay(1).atStartOfDay().atOffset(ZoneOffset.UTC));
        query.setObject(3, month.plusMonths(1).atDay(1).atStartOfDay().atOffset(ZoneOffset.UTC));
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
