package dev.colloquy.persistence.readside;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.projection.jdbc.JdbcSession;

/**
 * One transaction on a pooled connection: the projection runs its handler and stores its offset in
 * it, which is what makes the read side exactly once.
 */
final class DataSourceJdbcSession implements JdbcSession {

  private final Connection connection;

  DataSourceJdbcSession(DataSource dataSource) {
    try {
      this.connection = dataSource.getConnection();
      connection.setAutoCommit(false);
    } catch (SQLException e) {
      throw new IllegalStateException("No database connection for the read side", e);
    }
  }

  @Override
  public <Result> Result withConnection(Function<Connection, Result> func) throws Exception {
    return func.apply(connection);
  }

  @Override
  public void commit() throws SQLException {
    connection.commit();
  }

  @Override
  public void rollback() throws SQLException {
    connection.rollback();
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
