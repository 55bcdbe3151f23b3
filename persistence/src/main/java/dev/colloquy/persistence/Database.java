package dev.colloquy.persistence;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.colloquy.config.DatabaseSettings;
import dev.colloquy.config.StorageSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL server Colloquy stores everything in: the external one of the settings, or an
 * embedded one whose files live under the data directory. Its schema is migrated by Flyway on open.
 */
public final class Database implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Database.class);

  /** The file under the data directory holding the embedded PostgreSQL's superuser password (mode 0600). */
  public static final String PASSWORD_FILE = "postgres-password";

  private final DatabaseSettings connection;
  private final HikariDataSource dataSource;
  private final EmbeddedPostgres embedded;
  private final EmbeddedAuthentication authentication;
  private final DataDirLock lock;

  private Database(DatabaseSettings connection, EmbeddedPostgres embedded, EmbeddedAuthentication authentication,
      DataDirLock lock) {
    this.connection = connection;
    this.embedded = embedded;
    this.authentication = authentication;
    this.lock = lock;
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(connection.url());
    pool.setUsername(connection.user());
    pool.setPassword(connection.password());
    // Stated, not detected: a failed detection on the first connection poisons the pool for good
    // (see persistence/reference.conf, shared-databases.colloquy.db.isolation).
    pool.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    // Up to four read-side projection transactions at once, plus requests, health checks and purges.
    pool.setMaximumPoolSize(8);
    pool.setPoolName("colloquy");
    this.dataSource = new HikariDataSource(pool);
  }

  /** Opens the configured database (starting the embedded one when none is configured) and migrates it. */
  public static Database open(StorageSettings storage) {
    return migrated(storage.externalDb().map(Database::external)
        .orElseGet(() -> embedded(EmbeddedPlan.prepare(storage.dataDir(), storage.embeddedBinariesDir()))));
  }

  /**
   * Opens the configured database as {@link #open} does, on a thread of its own, and returns at once
   * with where it will be reached: a node's start goes on with what does not need the database yet
   * while PostgreSQL starts and Flyway migrates. The data directory is locked before this returns, so
   * a second node on the same directory still stops here, before it starts anything else.
   */
  public static DatabaseStart start(StorageSettings storage) {
    if (storage.externalDb().isPresent()) {
      DatabaseSettings settings = storage.externalDb().get();
      return DatabaseStart.begin(settings, () -> migrated(external(settings)));
    }
    EmbeddedPlan plan = EmbeddedPlan.prepare(storage.dataDir(), storage.embeddedBinariesDir());
    return DatabaseStart.begin(plan.connection(), () -> migrated(embedded(plan)));
  }

  private static Database migrated(Database database) {
    try {
      database.migrate();
      return database;
    } catch (RuntimeException e) {
      database.close();
      throw e;
    }
  }

  /**
   * Opens a database that must already hold Colloquy's data, for commands that only read or reset
   * it: an embedded one is refused, naming the directory, when it was never created there (a wrong
   * --data-dir, or a command run from another folder, would otherwise start an empty database).
   */
  public static Database openExisting(StorageSettings storage) {
    if (storage.externalDb().isEmpty() && !Files.isRegularFile(storage.dataDir().resolve("postgres").resolve("PG_VERSION"))) {
      throw new IllegalArgumentException("no Colloquy data in " + storage.dataDir().toAbsolutePath().normalize()
          + " (give --data-dir, or run from the folder that holds ./data)");
    }
    return open(storage);
  }

  private static Database external(DatabaseSettings settings) {
    // A JDBC URL may carry a password among its parameters: only what comes before them is logged.
    log.info("Using external PostgreSQL at {}", settings.url().split("\\?", 2)[0]);
    return new Database(settings, null, null, null);
  }

  /** Starts the embedded PostgreSQL of {@code plan}, which holds the data directory's lock (released on failure). */
  private static Database embedded(EmbeddedPlan plan) {
    try {
      EmbeddedAuthentication authentication = plan.authentication();
      if (isEmpty(plan.pgData())) {
        EmbeddedTemplate.forPrograms(plan.binaries()).ifPresent(template ->
            template.fill(plan.pgData(), authentication, Database::makeTemplate));
      }
      EmbeddedPostgres postgres = startServer(plan.pgData(), plan.binaries(), authentication, plan.port());
      try {
        authentication.enforce(postgres.getPostgresDatabase());
      } catch (RuntimeException e) {
        postgres.close();
        throw e;
      }
      log.info("Started embedded PostgreSQL on port {} with data in {}", postgres.getPort(), plan.pgData());
      return new Database(plan.connection(), postgres, authentication, plan.lock());
    } catch (IOException e) {
      plan.lock().close();
      throw new UncheckedIOException("Cannot start the embedded PostgreSQL under " + plan.pgData().getParent(), e);
    } catch (RuntimeException e) {
      plan.lock().close();
      throw e;
    }
  }

  /**
   * Starts PostgreSQL on {@code pgData}, running {@code initdb} first when the directory holds no
   * database, with the programs unpacked in {@code binaries}.
   */
  private static EmbeddedPostgres startServer(Path pgData, Path binaries, EmbeddedAuthentication authentication, int port)
      throws IOException {
    return EmbeddedPostgres.builder()
        .setDataDirectory(pgData)
        .setCleanDataDirectory(false)
        .setOverrideWorkingDirectory(binaries.toFile())
        // Chosen beforehand (EmbeddedPlan) so the journal's settings are known before it listens.
        .setPort(port)
        // The library starts PostgreSQL as a throwaway test database: no fsync, and commits
        // acknowledged before their WAL is flushed. The journal is the source of truth, so an
        // OS crash must not lose (or corrupt) events already confirmed to a client.
        .setServerConfig("fsync", "on")
        .setServerConfig("synchronous_commit", "on")
        // The library's initdb trusts every local connection: a new data directory gets the
        // superuser's password and SCRAM instead (these options only reach initdb).
        .setLocaleConfig("auth-host", "scram-sha-256")
        .setLocaleConfig("auth-local", "scram-sha-256")
        .setLocaleConfig("pwfile", authentication.passwordFile().toAbsolutePath().toString())
        .setServerConfig("password_encryption", "scram-sha-256")
        .setServerConfig("unix_socket_directories", "'" + authentication.socketDirectory() + "'")
        .setServerConfig("unix_socket_permissions", "0700")
        .setConnectConfig("password", authentication.password())
        .start();
  }

  /** A new data directory's template (see {@link EmbeddedTemplate}): initdb, the migrations, a clean stop. */
  private static Path makeTemplate(Path pgData, Path binaries, EmbeddedAuthentication authentication) {
    try (EmbeddedPostgres postgres = startServer(pgData, binaries, authentication, PlannedPort.forEmbeddedDatabase())) {
      migrate(postgres.getPostgresDatabase());
      return programsOf(pgData);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot make the embedded PostgreSQL's template in " + pgData, e);
    } finally {
      authentication.removeTemporarySocketDirectory();
    }
  }

  /**
   * The folder of the programs running the server of {@code pgData} (the library unpacks them once per
   * process, where the first server of the process asked), read from its postmaster's executable.
   */
  private static Path programsOf(Path pgData) throws IOException {
    long pid = Long.parseLong(Files.readAllLines(pgData.resolve("postmaster.pid")).get(0).strip());
    Path executable = ProcessHandle.of(pid).flatMap(process -> process.info().command()).map(Path::of)
        .orElseThrow(() -> new IOException("the executable of the server " + pid + " cannot be read"));
    return executable.getParent().getParent();
  }

  private static boolean isEmpty(Path directory) throws IOException {
    try (var entries = Files.list(directory)) {
      return entries.findAny().isEmpty();
    }
  }

  /** Every migration is in persistence's db/migration, whatever module owns its tables (see the README there). */
  private void migrate() {
    migrate(dataSource);
  }

  private static void migrate(DataSource dataSource) {
    Flyway.configure().dataSource(dataSource).locations("classpath:" + MigrationScripts.LOCATION).load().migrate();
  }

  /** Where the journal plugin connects. */
  public DatabaseSettings connection() {
    return connection;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public boolean embedded() {
    return embedded != null;
  }

  @Override
  public void close() {
    dataSource.close();
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        log.warn("Embedded PostgreSQL did not stop cleanly", e);
      }
      authentication.removeTemporarySocketDirectory();
    }
    if (lock != null) {
      lock.close();
    }
  }
}
