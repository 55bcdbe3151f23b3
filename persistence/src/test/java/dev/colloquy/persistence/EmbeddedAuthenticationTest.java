package dev.colloquy.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.config.StorageSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded PostgreSQL takes only connections that know the password Colloquy generated for it:
 * over TCP (JDBC, as any local program would try) and over its Unix socket, which lives in a
 * directory of its own that nobody else may enter. A data directory made by an earlier version,
 * whose server trusted everyone, keeps its data and gets the same protection on its next start.
 */
class EmbeddedAuthenticationTest {

  @TempDir
  Path dataDir;

  @Test
  void aNewDataDirectoryGetsAPasswordThatEveryConnectionNeeds() throws Exception {
    try (Database database = Database.open(new StorageSettings(dataDir, Optional.empty(), Optional.empty()))) {
      Path passwordFile = dataDir.resolve(EmbeddedAuthentication.PASSWORD_FILE);
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(passwordFile))).isEqualTo("rw-------");
      String password = Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
      assertThat(password).hasSizeGreaterThanOrEqualTo(40);
      assertThat(database.connection().password()).isEqualTo(password);
      String url = database.connection().url();

      assertRefused(url, null);
      assertRefused(url, "postgres");
      assertRefused(url, password.substring(1));
      try (Connection connection = connect(url, password); Statement statement = connection.createStatement();
          ResultSet methods = statement.executeQuery("SELECT DISTINCT auth_method FROM pg_hba_file_rules")) {
        assertThat(methods.next()).isTrue();
        assertThat(methods.getString(1)).isEqualTo("scram-sha-256");
        assertThat(methods.next()).as("only SCRAM in the rules in force").isFalse();
      }
      assertTheSocketIsPrivateAndRefusesWithoutThePassword(url, password);
    }
  }

  @Test
  void theSamePasswordOpensTheDatabaseAgainAfterARestart() {
    StorageSettings storage = new StorageSettings(dataDir, Optional.empty(), Optional.empty());
    String first;
    try (Database database = Database.open(storage)) {
      first = database.connection().password();
    }
    try (Database database = Database.open(storage)) {
      assertThat(database.connection().password()).isEqualTo(first);
      assertThat(database.embedded()).isTrue();
    }
  }

  @Test
  void aDataDirectoryThatTrustedEveryoneKeepsItsDataAndNeedsThePasswordFromNowOn() throws Exception {
    Path pgData = Files.createDirectories(dataDir.resolve("postgres"));
    try (EmbeddedPostgres earlier = EmbeddedPostgres.builder().setDataDirectory(pgData).setCleanDataDirectory(false)
        .setOverrideWorkingDirectory(dataDir.resolve("postgres-runtime").toFile()).start();
        Connection connection = earlier.getPostgresDatabase().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA earlier; CREATE TABLE earlier.kept (note TEXT); INSERT INTO earlier.kept VALUES ('written before the upgrade')");
    }
    assertThat(Files.exists(dataDir.resolve(EmbeddedAuthentication.PASSWORD_FILE))).isFalse();

    try (Database database = Database.open(new StorageSettings(dataDir, Optional.empty(), Optional.empty()));
        Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet kept = statement.executeQuery("SELECT note FROM earlier.kept")) {
      assertThat(kept.next()).isTrue();
      assertThat(kept.getString(1)).isEqualTo("written before the upgrade");
      assertRefused(database.connection().url(), null);
      assertThat(Files.readString(pgData.resolve("pg_hba.conf"))).doesNotContain("trust");
    }
  }

  private static void assertRefused(String url, String password) {
    assertThatThrownBy(() -> connect(url, password).close())
        .as("a connection with password %s", password)
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("password authentication failed", "no password"));
  }

  private static Connection connect(String url, String password) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", "postgres");
    if (password != null) {
      properties.setProperty("password", password);
    }
    return DriverManager.getConnection(url, properties);
  }

  /** The socket's directory admits its owner only; psql, where installed, is refused there too without the password. */
  private void assertTheSocketIsPrivateAndRefusesWithoutThePassword(String url, String password) throws Exception {
    Path socketDirectory = dataDir.resolve("postgres-socket");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socketDirectory))).isEqualTo("rwx------");
    String port = url.replaceAll(".*:(\\d+)/.*", "$1");
    assertThat(socketDirectory.resolve(".s.PGSQL." + port)).exists();
    Optional<Path> psql = List.of(Path.of("/usr/bin/psql"), Path.of("/usr/lib/postgresql/15/bin/psql")).stream()
        .filter(Files::isExecutable).findFirst();
    if (psql.isEmpty()) {
      System.out.println("EmbeddedAuthenticationTest: no psql on this machine; the socket is checked by its permissions only");
      return;
    }
    assertThat(psql(psql.get(), socketDirectory, port, null)).contains("no password supplied");
    assertThat(psql(psql.get(), socketDirectory, port, password)).contains("1 row");
  }

  private static String psql(Path psql, Path socketDirectory, String port, String password)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(psql.toString(), "-h", socketDirectory.toString(), "-p", port,
        "-U", "postgres", "-d", "postgres", "-w", "-c", "SELECT 1").redirectErrorStream(true);
    builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
    if (password != null) {
      builder.environment().put("PGPASSWORD", password);
    }
    Process process = builder.start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }
}
