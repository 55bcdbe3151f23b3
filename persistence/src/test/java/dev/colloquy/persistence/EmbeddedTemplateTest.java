package dev.colloquy.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.config.StorageSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new data directory's database is a copy of a template made once (initdb and every migration),
 * with the data directory's own password and rules: the same database Flyway would have made, without
 * making it again on every fresh start. Where a template cannot be used, the database is made as before.
 */
class EmbeddedTemplateTest {

  @TempDir
  Path programs;

  @TempDir
  Path dataDirs;

  @Test
  void newDataDirectoriesAreCopiesOfOneMigratedTemplateEachWithItsOwnPassword() throws Exception {
    StorageSettings first = storage("first");
    StorageSettings second = storage("second");
    try (Database a = Database.open(first); Database b = Database.open(second)) {
      // initdb gives every database cluster its own identifier: the same one in both is one template copied.
      assertThat(systemIdentifier(a)).isEqualTo(systemIdentifier(b));
      assertThat(a.connection().password()).isNotEqualTo(b.connection().password());
      assertRefused(a.connection().url(), b.connection().password());
      assertRefused(b.connection().url(), a.connection().password());
      assertRefused(b.connection().url(), null);
      for (Database database : List.of(a, b)) {
        assertThat(appliedMigrations(database)).isEqualTo(versionedScripts());
        try (Connection connection = database.dataSource().getConnection(); Statement statement = connection.createStatement();
            ResultSet methods = statement.executeQuery("SELECT DISTINCT auth_method FROM pg_hba_file_rules")) {
          assertThat(methods.next()).isTrue();
          assertThat(methods.getString(1)).isEqualTo("scram-sha-256");
          assertThat(methods.next()).isFalse();
        }
      }
      assertThat(Files.readString(second.dataDir().resolve("postgres").resolve("pg_hba.conf"), StandardCharsets.UTF_8))
          .as("Colloquy's rules, not the template's").startsWith("# Colloquy's embedded PostgreSQL");
    }

    Path templates = programs.resolve(EmbeddedTemplate.FOLDER);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(templates))).isEqualTo("rwx------");
    try (Stream<Path> entries = Files.list(templates)) {
      List<String> names = entries.filter(Files::isDirectory).map(path -> path.getFileName().toString()).toList();
      assertThat(names).as("one template, nothing left of its making").hasSize(1);
      Path template = templates.resolve(names.get(0));
      assertThat(template.resolve("PG_VERSION")).exists();
      assertThat(template.resolve(EmbeddedAuthentication.PASSWORD_FILE)).doesNotExist();
      Path programsRecord = templates.resolve(names.get(0) + ".programs");
      assertThat(Path.of(Files.readString(programsRecord).strip()).resolve("bin/postgres")).isExecutable();
    }
    assertThat(first.dataDir().resolve("postgres.from-template")).doesNotExist();
  }

  @Test
  void theCopyKeepsItsDataAndPasswordAcrossARestart() throws Exception {
    StorageSettings storage = storage("restarted");
    String password;
    try (Database database = Database.open(storage); Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      password = database.connection().password();
      statement.execute("CREATE TABLE kept (note TEXT); INSERT INTO kept VALUES ('written on the first start')");
    }
    try (Database database = Database.open(storage); Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement(); ResultSet kept = statement.executeQuery("SELECT note FROM kept")) {
      assertThat(database.connection().password()).isEqualTo(password);
      assertThat(kept.next()).isTrue();
      assertThat(kept.getString(1)).isEqualTo("written on the first start");
    }
  }

  @Test
  void aCopyLeftHalfMadeByAnEarlierStartIsMadeAgain() throws Exception {
    StorageSettings storage = storage("interrupted");
    Path halfMade = Files.createDirectories(storage.dataDir().resolve("postgres.from-template"));
    Files.writeString(halfMade.resolve("PG_VERSION"), "14\n");
    try (Database database = Database.open(storage)) {
      assertThat(appliedMigrations(database)).isEqualTo(versionedScripts());
    }
    assertThat(halfMade).doesNotExist();
  }

  @Test
  void aMakingCutShortWithItsServerStillRunningIsMadeAgain() throws Exception {
    Path template = EmbeddedTemplate.forPrograms(programs.resolve(EmbeddedBinaries.UNPACKED)).orElseThrow().path();
    Path leftover = Files.createDirectories(template.resolveSibling(template.getFileName() + ".making").resolve("postgres"));
    // What a process killed while making the template leaves: a server running on the half-made folder.
    EmbeddedPostgres orphan = EmbeddedPostgres.builder().setDataDirectory(leftover).setCleanDataDirectory(false)
        .setOverrideWorkingDirectory(programs.resolve(EmbeddedBinaries.UNPACKED).toFile()).start();
    ProcessHandle postmaster = LeftoverPostmaster.running(leftover).orElseThrow();
    try (Database database = Database.open(storage("after-a-kill"))) {
      assertThat(postmaster.isAlive()).isFalse();
      assertThat(appliedMigrations(database)).isEqualTo(versionedScripts());
      assertThat(template.resolve("PG_VERSION")).exists();
      assertThat(leftover).doesNotExist();
    } finally {
      orphan.close();
    }
  }

  @Test
  void whereNoTemplateCanBeMadeTheDatabaseIsMadeAsBefore() throws Exception {
    // A file where the templates' folder would be: no template can be kept there.
    Files.writeString(programs.resolve(EmbeddedTemplate.FOLDER), "not a folder");
    try (Database a = Database.open(storage("without-1")); Database b = Database.open(storage("without-2"))) {
      assertThat(appliedMigrations(a)).isEqualTo(versionedScripts());
      assertThat(systemIdentifier(a)).as("two databases each made by initdb").isNotEqualTo(systemIdentifier(b));
      assertRefused(a.connection().url(), null);
    }
  }

  @Test
  void aTemplateIsNamedByTheProgramsEveryScriptAndTheLocale() {
    Map<String, byte[]> scripts = new LinkedHashMap<>();
    scripts.put("V1__a.sql", "CREATE TABLE a (id INT);".getBytes(StandardCharsets.UTF_8));
    scripts.put("V2__b.sql", "CREATE TABLE b (id INT);".getBytes(StandardCharsets.UTF_8));
    Map<String, byte[]> reordered = new LinkedHashMap<>();
    reordered.put("V2__b.sql", scripts.get("V2__b.sql"));
    reordered.put("V1__a.sql", scripts.get("V1__a.sql"));
    Map<String, byte[]> edited = new LinkedHashMap<>(scripts);
    edited.put("V2__b.sql", "CREATE TABLE b (id BIGINT);".getBytes(StandardCharsets.UTF_8));
    Map<String, byte[]> added = new LinkedHashMap<>(scripts);
    added.put("V3__c.sql", new byte[0]);

    String key = EmbeddedTemplate.key("archive", MigrationScripts.digest(scripts), "LANG=C.UTF-8");
    assertThat(EmbeddedTemplate.key("archive", MigrationScripts.digest(reordered), "LANG=C.UTF-8")).isEqualTo(key);
    assertThat(EmbeddedTemplate.key("archive", MigrationScripts.digest(edited), "LANG=C.UTF-8")).isNotEqualTo(key);
    assertThat(EmbeddedTemplate.key("archive", MigrationScripts.digest(added), "LANG=C.UTF-8")).isNotEqualTo(key);
    assertThat(EmbeddedTemplate.key("other archive", MigrationScripts.digest(scripts), "LANG=C.UTF-8")).isNotEqualTo(key);
    assertThat(EmbeddedTemplate.key("archive", MigrationScripts.digest(scripts), "LANG=de_DE.UTF-8")).isNotEqualTo(key);
    assertThat(EmbeddedTemplate.locale(Map.of("LANG", "de_DE.UTF-8", "LC_COLLATE", "C")))
        .isNotEqualTo(EmbeddedTemplate.locale(Map.of("LANG", "de_DE.UTF-8")));
  }

  @Test
  void theScriptsAreReadFromAJarAsFromAFolder() throws IOException {
    Path jar = dataDirs.resolve("migrations.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry(MigrationScripts.LOCATION + "/"));
      for (String name : List.of("V1__a.sql", "README.md")) {
        out.putNextEntry(new JarEntry(MigrationScripts.LOCATION + "/" + name));
        out.write(name.getBytes(StandardCharsets.UTF_8));
      }
      out.putNextEntry(new JarEntry("elsewhere/V9__not_a_migration.sql"));
    }
    try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
      Map<String, byte[]> scripts = MigrationScripts.scripts(loader);
      assertThat(scripts).containsOnlyKeys("V1__a.sql", "README.md");
      assertThat(new String(scripts.get("V1__a.sql"), StandardCharsets.UTF_8)).isEqualTo("V1__a.sql");
    }
    assertThat(MigrationScripts.scripts(getClass().getClassLoader()))
        .containsKey("V96__tenant_open_sessions_until_now.sql");
  }

  private StorageSettings storage(String name) {
    return new StorageSettings(dataDirs.resolve(name), Optional.empty(), Optional.of(programs));
  }

  private static long systemIdentifier(Database database) throws SQLException {
    try (Connection connection = database.dataSource().getConnection(); Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT system_identifier FROM pg_control_system()")) {
      assertThat(row.next()).isTrue();
      return row.getLong(1);
    }
  }

  private static long appliedMigrations(Database database) throws SQLException {
    try (Connection connection = database.dataSource().getConnection(); Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(
            "SELECT count(*) FILTER (WHERE success), count(*) FILTER (WHERE NOT success) FROM flyway_schema_history WHERE version IS NOT NULL")) {
      assertThat(row.next()).isTrue();
      assertThat(row.getInt(2)).as("failed migrations").isZero();
      return row.getLong(1);
    }
  }

  private static void assertRefused(String url, String password) {
    Properties properties = new Properties();
    properties.setProperty("user", "postgres");
    if (password != null) {
      properties.setProperty("password", password);
    }
    assertThatThrownBy(() -> DriverManager.getConnection(url, properties).close())
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("password authentication failed", "no password"));
  }

  /** The scripts Flyway applies as versions (the folder also holds its README). */
  private long versionedScripts() {
    return MigrationScripts.scripts(getClass().getClassLoader()).keySet().stream()
        .filter(name -> name.startsWith("V") && name.endsWith(".sql")).count();
  }
}
