package dev.colloquy.persistence.readside;

import dev.colloquy.engine.session.IdleSessions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/** The session list and the idle-session lookup, read from the {@code sessions} table. */
public final class JdbcSessionListing implements SessionListing, IdleSessions {

  private final DataSource dataSource;
  private final Executor executor;

  public JdbcSessionListing(DataSource dataSource, Executor executor) {
    this.dataSource = dataSource;
    this.executor = executor;
  }

  @Override
  public CompletionStage<SessionPage> list(String tenantId, Optional<String> userId, Optional<String> status,
      Optional<String> titleContains, int limit, Optional<SessionCursor> after) {
    List<String> statuses = status.map(List::of).orElse(STATUSES);
    return CompletableFuture.supplyAsync(() -> page(tenantId, userId, statuses, titleContains, limit, after), executor);
  }

  /**
   * The title filter is {@code strpos} over lower-cased text rather than {@code ILIKE}, so that a
   * {@code %} or {@code _} the user typed is matched as itself, with nothing to escape. It lower-cases
   * with ICU's root collation, not the database's locale: a database created with the C locale would
   * lower only ASCII letters, and "ÉTÉ" would not find "été".
   */
  private SessionPage page(String tenantId, Optional<String> userId, List<String> statuses,
      Optional<String> titleContains, int limit, Optional<SessionCursor> after) {
    String sql = """
        SELECT session_id, status, title, created_at, last_activity_at, closed_at, close_reason, turn_count,
          prompt_tokens, completion_tokens, cost_usd
        FROM sessions WHERE tenant_id = ? AND status = ANY (?)"""
        + (userId.isPresent() ? " AND user_id = ?" : "")
        + (titleContains.isPresent() ? " AND strpos(lower(title COLLATE \"und-x-icu\"), lower(? COLLATE \"und-x-icu\")) > 0" : "")
        + (after.isPresent() ? " AND (last_activity_at, session_id) < (?, ?)" : "")
        + " ORDER BY last_activity_at DESC, session_id DESC LIMIT ?";
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      int i = 1;
      query.setString(i++, tenantId);
      query.setArray(i++, connection.createArrayOf("text", statuses.toArray()));
      if (userId.isPresent()) {
        query.setString(i++, userId.get());
      }
      if (titleContains.isPresent()) {
        query.setString(i++, titleContains.get());
      }
      if (after.isPresent()) {
        query.setObject(i++, after.get().lastActivityAt().atOffset(ZoneOffset.UTC));
        query.setString(i++, after.get().sessionId());
      }
      query.setInt(i, limit + 1);
      List<SessionRow> rows = new ArrayList<>();
      try (ResultSet rs = query.executeQuery()) {
        while (rs.next()) {
          rows.add(new SessionRow(rs.getString("session_id"), rs.getString("status"), rs.getString("title"),
              instant(rs, "created_at"), instant(rs, "last_activity_at"), instant(rs, "closed_at"),
              rs.getString("close_reason"), rs.getInt("turn_count"), rs.getLong("prompt_tokens"),
              rs.getLong("completion_tokens"), rs.getDouble("cost_usd")));
        }
      }
      if (rows.size() <= limit) {
        return new SessionPage(rows, Optional.empty());
      }
      SessionRow last = rows.get(limit - 1);
      return new SessionPage(rows.subList(0, limit),
          Optional.of(new SessionCursor(last.lastActivityAt(), last.sessionId())));
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot list sessions", e);
    }
  }

  @Override
  public CompletionStage<List<String>> tenantsWithOpenSessionsBefore(Instant cutoff) {
    return CompletableFuture.supplyAsync(() -> strings(
        "SELECT DISTINCT tenant_id FROM sessions WHERE status IN ('open', 'escalated') AND last_activity_at < ?",
        query -> query.setObject(1, cutoff.atOffset(ZoneOffset.UTC))), executor);
  }

  @Override
  public CompletionStage<List<String>> openWithLastActivityBefore(String tenantId, Instant cutoff, int limit) {
    return CompletableFuture.supplyAsync(() -> strings("""
        SELECT session_id FROM sessions WHERE tenant_id = ? AND status IN ('open', 'escalated') AND last_activity_at < ?
        ORDER BY last_activity_at LIMIT ?""", query -> {
          query.setString(1, tenantId);
          query.setObject(2, cutoff.atOffset(ZoneOffset.UTC));
          query.setInt(3, limit);
        }), executor);
  }

  private interface Parameters {
    void set(PreparedStatement query) throws SQLException;
  }

  private List<String> strings(String sql, Parameters parameters) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      parameters.set(query);
      List<String> values = new ArrayList<>();
      try (ResultSet rs = query.executeQuery()) {
        while (rs.next()) {
          values.add(rs.getString(1));
        }
      }
      return values;
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot look up idle sessions", e);
    }
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }
}
