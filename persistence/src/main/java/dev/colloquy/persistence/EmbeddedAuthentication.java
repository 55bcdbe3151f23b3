package dev.colloquy.persistence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import javax.sql.DataSource;

/**
 * How the embedded PostgreSQL lets Colloquy in, and nobody else: its superuser has a password
 * generated on the first start and kept in {@code postgres-password} under the data directory (mode
 * 0600), every connection must prove it with SCRAM-SHA-256, and its Unix socket lives in a directory
 * only this user can enter. A data directory created before, whose server trusted every local
 * connection, is converted on its next start: the password is written first, then set on the
 * role, then the trusting rules are replaced, so a start cut short at any point can run again.
 */
final class EmbeddedAuthentication {

  static final String PASSWORD_FILE = Database.PASSWORD_FILE;
  static final String SUPERUSER = "postgres";

  /** The first line marks the rules as Colloquy's own; any other file is converted. */
  private static final String HBA_HEADER = "# Colloquy's embedded PostgreSQL: every connection needs the password in ";
  private static final String OWNER_ONLY_FILE = "rw-------";
  private static final String OWNER_ONLY_DIRECTORY = "rwx------";
  /** A Unix socket path is limited to 107 bytes; PostgreSQL adds "/.s.PGSQL.nnnnn". */
  private static final int MAX_SOCKET_DIRECTORY = 90;
  private static final int PASSWORD_BYTES = 32;

  private final Path pgData;
  private final Path passwordFile;
  private final String password;
  private final Path socketDirectory;
  private final boolean temporarySocketDirectory;

  private EmbeddedAuthentication(Path pgData, Path passwordFile, String password, Path socketDirectory) {
    this.pgData = pgData;
    this.passwordFile = passwordFile;
    this.password = password;
    this.socketDirectory = socketDirectory;
    this.temporarySocketDirectory = !socketDirectory.startsWith(passwordFile.getParent().toAbsolutePath().normalize());
  }

  /** Reads the password of {@code dataDir}, or generates and stores one; prepares the socket directory. */
  static EmbeddedAuthentication prepare(Path dataDir, Path pgData) {
    try {
      Path passwordFile = dataDir.resolve(PASSWORD_FILE);
      if (!Files.exists(passwordFile)) {
        writeOwnerOnly(passwordFile, generatePassword());
      }
      String password = Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
      if (password.isEmpty()) {
        throw new IllegalStateException(passwordFile + " is empty; delete it only together with "
            + pgData + ", or write the database's password back into it");
      }
      return new EmbeddedAuthentication(pgData, passwordFile, password, socketDirectory(dataDir));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare the embedded PostgreSQL's password under " + dataDir, e);
    }
  }

  String password() {
    return password;
  }

  /** The password file, which initdb reads the superuser's password from when it creates a data directory. */
  Path passwordFile() {
    return passwordFile;
  }

  Path socketDirectory() {
    return socketDirectory;
  }

  /** Removes a socket directory made in the temporary directory, once the server has stopped. */
  void removeTemporarySocketDirectory() {
    if (temporarySocketDirectory) {
      try (var files = Files.list(socketDirectory)) {
        for (Path file : files.toList()) {
          Files.deleteIfExists(file);
        }
        Files.deleteIfExists(socketDirectory);
      } catch (IOException e) {
        // The server may still hold its lock file there; the temporary directory is the system's to clean.
      }
    }
  }

  /** Whether the rules in place are Colloquy's; when not, the server starts on them once and is converted. */
  boolean rulesInPlace() {
    Path hba = pgData.resolve("pg_hba.conf");
    try {
      return Files.isRegularFile(hba) && Files.readString(hba, StandardCharsets.UTF_8).startsWith(HBA_HEADER);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + hba, e);
    }
  }

  /**
   * Run on the started server, connected as the superuser: sets the password on the role (hashed
   * with SCRAM by the server), then puts Colloquy's rules in place and has the server reload them.
   */
  void enforce(DataSource superuser) {
    try (Connection connection = superuser.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("SET password_encryption = 'scram-sha-256'");
      // The password is base64url: nothing in it can end the literal.
      statement.execute("ALTER ROLE " + SUPERUSER + " PASSWORD '" + password + "'");
      if (!rulesInPlace()) {
        writeRules(pgData);
        statement.execute("SELECT pg_reload_conf()");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot secure the embedded PostgreSQL in " + pgData + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the embedded PostgreSQL's rules in " + pgData, e);
    }
  }

  /**
   * Puts Colloquy's rules in {@code dataDirectory}: the server's own, or a copy about to be started for
   * the first time.
   */
  void writeRules(Path dataDirectory) throws IOException {
    writeOwnerOnly(dataDirectory.resolve("pg_hba.conf"), rules());
  }

  private String rules() {
    return HBA_HEADER + passwordFile.getFileName() + " beside this directory.\n"
        + "# Written by Colloquy on start; a file without this header is replaced.\n"
        + "local all all scram-sha-256\n"
        + "host all all 127.0.0.1/32 scram-sha-256\n"
        + "host all all ::1/128 scram-sha-256\n";
  }

  private static String generatePassword() {
    byte[] secret = new byte[PASSWORD_BYTES];
    new SecureRandom().nextBytes(secret);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }

  /**
   * The data directory's socket directory, or a fresh private one in the temporary directory when
   * the data directory's path is too long for a Unix socket.
   */
  private static Path socketDirectory(Path dataDir) throws IOException {
    Path preferred = dataDir.toAbsolutePath().normalize().resolve("postgres-socket");
    if (preferred.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_DIRECTORY) {
      Files.createDirectories(preferred);
      ownerOnly(preferred, OWNER_ONLY_DIRECTORY);
      return preferred;
    }
    if (posix()) {
      return Files.createTempDirectory("colloquy-pg",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(OWNER_ONLY_DIRECTORY)));
    }
    return Files.createTempDirectory("colloquy-pg");
  }

  /** Writes {@code content} to a new file readable by its owner only, then moves it over {@code file} at once. */
  private static void writeOwnerOnly(Path file, String content) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(temporary);
    if (posix()) {
      Files.createFile(temporary, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(OWNER_ONLY_FILE)));
    } else {
      Files.createFile(temporary);
    }
    Files.writeString(temporary, content + (content.endsWith("\n") ? "" : "\n"), StandardCharsets.UTF_8);
    try {
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void ownerOnly(Path path, String permissions) throws IOException {
    if (posix()) {
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
    }
  }

  private static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }
}
