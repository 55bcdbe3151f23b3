package dev.colloquy.persistence;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.colloquy.config.DatabaseSettings;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the journal's database answers, checked in the background every second so that readiness
 * and the refusal of new turns cost a field read, and flip within about two seconds of the database
 * going away or coming back. It has a one-connection pool of its own: the shared pools wait for a
 * connection far longer than a readiness probe may.
 */
public final class JournalHealth implements BooleanSupplier, Supplier<CompletionStage<Boolean>>, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(JournalHealth.class);
  private static final Duration INTERVAL = Duration.ofSeconds(1);
  private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(1500);
  private static final int VALID_SECONDS = 1;

  private final HikariDataSource pool;
  private final ScheduledExecutorService scheduler;
  private volatile boolean reachable;

  private JournalHealth(DatabaseSettings db) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url());
    config.setUsername(db.user());
    config.setPassword(db.password());
    // Stated, not detected: a failed detection on the first connection poisons the pool for good
    // (see persistence/reference.conf, shared-databases.colloquy.db.isolation).
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    config.setPoolName("colloquy-health");
    config.setMaximumPoolSize(1);
    config.setConnectionTimeout(CONNECT_TIMEOUT.toMillis());
    config.setValidationTimeout(CONNECT_TIMEOUT.toMillis() - 500);
    // The database may be down when this starts; that is what it is here to tell.
    config.setInitializationFailTimeout(-1);
    this.pool = new HikariDataSource(config);
    this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("journal-health").factory());
  }

  /** Checks once now, then every second until closed. */
  public static JournalHealth start(DatabaseSettings db) {
    JournalHealth health = new JournalHealth(db);
    health.check();
    health.scheduler.scheduleWithFixedDelay(health::check, INTERVAL.toMillis(), INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    return health;
  }

  private void check() {
    boolean now;
    try (Connection connection = pool.getConnection()) {
      now = connection.isValid(VALID_SECONDS);
    } catch (Exception e) {
      now = false;
    }
    if (now != reachable) {
      if (now) {
        log.info("The journal database is reachable");
      } else {
        log.warn("The journal database is unreachable: readiness is false and new turns are refused");
      }
    }
    reachable = now;
  }

  /** The result of the last check. */
  @Override
  public boolean getAsBoolean() {
    return reachable;
  }

  @Override
  public CompletionStage<Boolean> get() {
    return CompletableFuture.completedFuture(reachable);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    pool.close();
  }
}
