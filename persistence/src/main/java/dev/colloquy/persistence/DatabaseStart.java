package dev.colloquy.persistence;

import dev.colloquy.config.DatabaseSettings;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * A database being opened (PostgreSQL started, Flyway's migrations run) on a thread of its own, made
 * by {@link Database#start}: where it will be reached is known at once, the database itself once
 * {@link #await} returns.
 */
public final class DatabaseStart {

  private final DatabaseSettings connection;
  private final CompletableFuture<Database> opened;

  private DatabaseStart(DatabaseSettings connection, CompletableFuture<Database> opened) {
    this.connection = connection;
    this.opened = opened;
  }

  static DatabaseStart begin(DatabaseSettings connection, Supplier<Database> open) {
    CompletableFuture<Database> opened = new CompletableFuture<>();
    Thread.ofPlatform().name("colloquy-database-start").start(() -> {
      try {
        opened.complete(open.get());
      } catch (Throwable failure) {
        opened.completeExceptionally(failure);
      }
    });
    return new DatabaseStart(connection, opened);
  }

  /** Where the journal and the health check will connect; the database may not answer yet. */
  public DatabaseSettings connection() {
    return connection;
  }

  /** The open, migrated database; its start's failure is thrown here as it was thrown there. */
  public Database await() {
    try {
      return opened.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /**
   * For a node whose start failed elsewhere: waits for the database's own start to end and closes
   * it, so the data directory's lock and PostgreSQL do not outlive the failed start.
   */
  public void abandon() {
    Database database = opened.handle((open, failure) -> open).join();
    if (database != null) {
      database.close();
    }
  }
}
