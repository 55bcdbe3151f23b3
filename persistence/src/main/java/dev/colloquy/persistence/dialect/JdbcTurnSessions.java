package dev.colloquy.persistence.dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/** {@link TurnSessions} in the {@code turn_sessions} table, on {@code executor} (never on the caller's thread). */
public final class JdbcTurnSessions implements TurnSessions {

  private final DataSource dataSource;
  private final Executor executor;

  public JdbcTurnSessions(DataSource dataSource, Executor executor) {
    this.dataSource = dataSource;
    this.executor = executor;
  }

  @Override
  public CompletionStage<Void> record(String turnId, String sessionId, String tenantId) {
    return CompletableFuture.runAsync(() -> {
      try (Connection connection = dataSource.getConnection();
          PreparedStatement insert = connection.prepareStatement(
              "INSERT INTO turn_sessions (turn_id, session_id, tenant_id) VALUES (?, ?, ?) ON CONFLICT (turn_id) DO NOTHING")) {
        insert.setString(1, turnId);
        insert.setString(2, sessionId);
        insert.setString(3, tenantId);
        insert.executeUpdate();
      } catch (SQLException e) {
        throw new IllegalStateException("Cannot record the session of turn " + turnId, e);
      }
    }, executor);
  }

  @Override
  public CompletionStage<Optional<String>> sessionOf(String turnId, String tenantId) {
    return CompletableFuture.supplyAsync(() -> {
      try (Connection connection = dataSource.getConnection();
          PreparedStatement query = connection.prepareStatement(
              "SELECT session_id FROM turn_sessions WHERE turn_id = ? AND tenant_id = ?")) {
        query.setString(1, turnId);
        query.setString(2, tenantId);
        try (ResultSet rs = query.executeQuery()) {
          return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
        }
      } catch (SQLException e) {
        throw new IllegalStateException("Cannot read the session of turn " + turnId, e);
      }
    }, executor);
  }
}
