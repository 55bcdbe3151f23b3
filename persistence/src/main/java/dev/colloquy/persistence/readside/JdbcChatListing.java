package dev.colloquy.persistence.readside;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/** The chat list, read from the {@code sessions} table's rows that have a character. */
public final class JdbcChatListing implements ChatListing {

  private final DataSource dataSource;
  private final Executor executor;

  public JdbcChatListing(DataSource dataSource, Executor executor) {
    this.dataSource = dataSource;
    this.executor = executor;
  }

  @Override
  public CompletionStage<List<ChatRow>> chats(String tenantId, Optional<String> userId, int limit) {
    return CompletableFuture.supplyAsync(() -> read(tenantId, userId, limit), executor);
  }

  private List<ChatRow> read(String tenantId, Optional<String> userId, int limit) {
    String sql = """
        SELECT session_id, user_id, character_id, title, created_at, last_activity_at FROM sessions
        WHERE tenant_id = ? AND character_id IS NOT NULL AND status IN ('open', 'closed')"""
        + (userId.isPresent() ? " AND user_id = ?" : "")
        + " ORDER BY last_activity_at DESC, session_id DESC LIMIT ?";
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      int i = 1;
      query.setString(i++, tenantId);
      if (userId.isPresent()) {
        query.setString(i++, userId.get());
      }
      query.setInt(i, limit);
      List<ChatRow> rows = new ArrayList<>();
      try (ResultSet rs = query.executeQuery()) {
        while (rs.next()) {
          rows.add(new ChatRow(rs.getString("session_id"), rs.getString("user_id"), rs.getString("character_id"),
              rs.getString("title"), rs.getObject("created_at", OffsetDateTime.class).toInstant(),
              rs.getObject("last_activity_at", OffsetDateTime.class).toInstant()));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot list chats", e);
    }
  }
}
