package dev.colloquy.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding and stopping a PostgreSQL that a killed node left running on its data directory. */
class LeftoverPostmasterTest {

  @TempDir
  Path dir;

  @Test
  void aDirectoryWithoutARunningServerHasNothingToStop() throws Exception {
    Path pgData = Files.createDirectories(dir.resolve("postgres"));
    assertThat(LeftoverPostmaster.stopIfRunning(pgData)).isFalse();

    Files.writeString(pgData.resolve("postmaster.pid"), ProcessHandle.current().pid() + "\n" + pgData + "\n");
    assertThat(LeftoverPostmaster.running(pgData)).as("a live pid that is not PostgreSQL is left alone").isEmpty();

    Files.writeString(pgData.resolve("postmaster.pid"), "999999999\n" + pgData + "\n");
    assertThat(LeftoverPostmaster.stopIfRunning(pgData)).as("a stale pid file").isFalse();
  }

  @Test
  void aServerLeftRunningIsStoppedCleanlyAndTheNextOneFindsItsData() throws Exception {
    Path pgData = Files.createDirectories(dir.resolve("postgres"));
    EmbeddedPostgres orphan = start(pgData);
    ProcessHandle postmaster;
    try {
      execute(orphan, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before')");
      postmaster = LeftoverPostmaster.running(pgData).orElseThrow();
      assertThat(postmaster.isAlive()).isTrue();
      assertThat(LeftoverPostmaster.running(dir.resolve("elsewhere"))).isEmpty();

      assertThat(LeftoverPostmaster.stopIfRunning(pgData)).isTrue();

      assertThat(postmaster.isAlive()).isFalse();
      assertThat(pgData.resolve("postmaster.pid")).doesNotExist();
    } finally {
      // Releases the embedded server's lock file; its own stop finds nothing left to stop.
      orphan.close();
    }
    EmbeddedPostgres next = start(pgData);
    try (Connection connection = next.getPostgresDatabase().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT v FROM kept")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getString(1)).isEqualTo("before");
    } finally {
      next.close();
    }
  }

  private EmbeddedPostgres start(Path pgData) throws Exception {
    return EmbeddedPostgres.builder().setDataDirectory(pgData).setCleanDataDirectory(false)
        .setOverrideWorkingDirectory(dir.resolve("runtime").toFile()).start();
  }

  private static void execute(EmbeddedPostgres postgres, String sql) throws Exception {
    try (Connection connection = postgres.getPostgresDatabase().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
