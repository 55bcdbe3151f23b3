package dev.colloquy.persistence;

import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.sql.DataSource;

/** Whether the database answers a connection check within a couple of seconds. */
public final class DatabaseHealth implements Supplier<CompletionStage<Boolean>> {

  private static final int CHECK_SECONDS = 2;

  private final DataSource dataSource;
  private final Executor blocking;

  public DatabaseHealth(DataSource dataSource, Executor blocking) {
    this.dataSource = dataSource;
    this.blocking = blocking;
  }

  @Override
  public CompletionStage<Boolean> get() {
    return CompletableFuture.supplyAsync(() -> {
      try (Connection connection = dataSource.getConnection()) {
        return connection.isValid(CHECK_SECONDS);
      } catch (Exception e) {
        return false;
      }
    }, blocking);
  }
}
