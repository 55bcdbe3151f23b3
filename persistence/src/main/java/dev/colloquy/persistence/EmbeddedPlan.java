package dev.colloquy.persistence;

import dev.colloquy.config.DatabaseSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the embedded PostgreSQL of a data directory will be, settled before it starts: the directory
 * locked for this process, its password, and the port it will listen on. The journal's settings (URL,
 * user, password) follow from it, so a node can configure its actor system while PostgreSQL starts.
 */
record EmbeddedPlan(Path pgData, Path binaries, DataDirLock lock, EmbeddedAuthentication authentication, int port) {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedPlan.class);

  /**
   * Locks {@code dataDir} (or throws {@link DataDirInUseException}) and prepares its PostgreSQL's files;
   * the server's programs are unpacked in {@code binariesDir} or where {@link EmbeddedBinaries} says.
   */
  static EmbeddedPlan prepare(Path dataDir, Optional<Path> binariesDir) {
    DataDirLock lock = DataDirLock.acquire(dataDir);
    try {
      Path pgData = dataDir.resolve("postgres");
      Files.createDirectories(pgData);
      LeftoverPostmaster.stopIfRunning(pgData);
      EmbeddedAuthentication authentication = EmbeddedAuthentication.prepare(dataDir, pgData);
      if (Files.isRegularFile(pgData.resolve("PG_VERSION")) && !authentication.rulesInPlace()) {
        log.warn("The embedded PostgreSQL in {} trusts local connections (made by an earlier version); "
            + "setting its password and requiring it from now on", pgData);
      }
      Path binaries = EmbeddedBinaries.directory(dataDir, binariesDir, System.getenv(), System.getProperty("user.home"));
      return new EmbeddedPlan(pgData, binaries, lock, authentication, PlannedPort.forEmbeddedDatabase());
    } catch (IOException e) {
      lock.close();
      throw new UncheckedIOException("Cannot start the embedded PostgreSQL under " + dataDir, e);
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /** Where the journal, the read side and the health check connect. */
  DatabaseSettings connection() {
    return new DatabaseSettings("jdbc:postgresql://localhost:" + port + "/postgres", EmbeddedAuthentication.SUPERUSER,
        authentication.password());
  }
}
