package dev.colloquy.persistence;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the embedded PostgreSQL's programs are unpacked. Unpacking them (60 MB from a 14 MB xz archive)
 * took about two seconds of a new data directory's start when each data directory held its own copy;
 * one copy per user and version, shared by every data directory, is unpacked once. The library that
 * unpacks them locks the directory while it does, so nodes starting together unpack them once.
 *
 * <p>The server is run from there, so the directory must be this user's and writable by no one else:
 * anyone who could write to it could put their own programs in the server's place. The library makes
 * the folder it unpacks into writable by everyone (it was written for a shared temporary directory), so
 * it is given a folder inside the checked one, which nobody else can enter.
 */
final class EmbeddedBinaries {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedBinaries.class);

  /** The copy a data directory made by an earlier version holds, next to its PostgreSQL data. */
  static final String OWN_COPY = "postgres-runtime";

  /** The library's folder inside the checked directory: one subfolder per version of the programs. */
  static final String UNPACKED = "postgres";

  private static final Set<PosixFilePermission> WRITABLE_BY_OTHERS =
      Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

  private EmbeddedBinaries() {}

  /**
   * Where the library unpacks the programs for the data directory {@code dataDir}: in the configured
   * directory (refused, with the reason, when it is not safe to run programs from); else the copy the data
   * directory already holds; else in the user's cache directory named by {@code env} and {@code userHome};
   * else, when that cannot be made safe, a copy of the data directory's own.
   */
  static Path directory(Path dataDir, Optional<Path> configured, Map<String, String> env, String userHome) {
    if (configured.isPresent()) {
      Optional<String> unsafe = prepare(configured.get());
      if (unsafe.isPresent()) {
        throw new IllegalStateException("The embedded PostgreSQL's programs cannot be kept in " + configured.get()
            + " (COLLOQUY_EMBEDDED_BINARIES_DIR): " + unsafe.get());
      }
      return configured.get().resolve(UNPACKED);
    }
    Path ownCopy = dataDir.resolve(OWN_COPY);
    if (Files.isDirectory(ownCopy)) {
      return ownCopy;
    }
    Path cache = userCache(env, userHome);
    // The JDK reports "?" as the home of a user it cannot look up: no cache relative to the working directory.
    Optional<String> unsafe = cache.isAbsolute() ? prepare(cache) : Optional.of("the user has no home directory");
    if (unsafe.isPresent()) {
      log.warn("Unpacking the embedded PostgreSQL's programs in the data directory, not in {}: {}", cache, unsafe.get());
      return ownCopy;
    }
    return cache.resolve(UNPACKED);
  }

  /** The XDG base directory specification's cache directory, Colloquy's folder in it. */
  static Path userCache(Map<String, String> env, String userHome) {
    String xdg = env.getOrDefault("XDG_CACHE_HOME", "");
    // The specification ignores a relative path.
    Path base = !xdg.isEmpty() && Path.of(xdg).isAbsolute() ? Path.of(xdg) : Path.of(userHome, ".cache");
    return base.resolve("colloquy");
  }

  /** Creates {@code dir} for this user alone when missing; returns why it is unsafe, if it is. */
  private static Optional<String> prepare(Path dir) {
    try {
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir.getParent());
        try {
          Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException raced) {
          // Another node created it at the same moment: checked below like any existing directory.
        }
      }
      Optional<String> self = ProcessHandle.current().info().user();
      String owner = Files.getOwner(dir).getName();
      if (self.isEmpty()) {
        return Optional.of("this process's user is not known, so its owner " + owner + " cannot be checked");
      }
      if (!self.get().equals(owner)) {
        return Optional.of("it belongs to " + owner + ", not to " + self.get());
      }
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir);
      if (permissions.stream().anyMatch(WRITABLE_BY_OTHERS::contains)) {
        return Optional.of("others may write to it (" + PosixFilePermissions.toString(permissions) + ")");
      }
      if (!Files.isWritable(dir)) {
        return Optional.of("it is not writable");
      }
      return Optional.empty();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return Optional.of("it cannot be created or read (" + e.getMessage() + ")");
    }
  }
}
