package dev.colloquy.app;

import dev.colloquy.http.SessionRoutes;
import dev.colloquy.persistence.tenant.DuplicateTenantException;
import dev.colloquy.persistence.tenant.IssuedKey;
import dev.colloquy.persistence.tenant.TenantStore;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * Development in two commands: on a database with no tenant, a node creates tenant {@code dev} with
 * one key, prints the key once and leaves it in {@code <data dir>/dev-api-key}, readable by its owner
 * only. The tenant takes the id {@code default}, the tenant of everything stored before tenancy.
 */
final class DevTenant {

  static final String NAME = "dev";
  static final String KEY_FILE = "dev-api-key";

  private DevTenant() {}

  static Optional<IssuedKey> ensure(TenantStore tenants, Path dataDir, PrintStream out) {
    if (!tenants.isEmpty()) {
      return Optional.empty();
    }
    IssuedKey key;
    try {
      key = tenants.create(SessionRoutes.DEFAULT_TENANT, NAME).key();
    } catch (DuplicateTenantException e) {
      // Another node of the cluster created it first and holds its key.
      return Optional.empty();
    }
    Path file = dataDir.resolve(KEY_FILE);
    write(file, key.apiKey());
    out.println("Created development tenant '" + NAME + "'. Its API key (shown once; also in " + file + "):");
    out.println(key.apiKey());
    out.flush();
    return Optional.of(key);
  }

  private static void write(Path file, String apiKey) {
    try {
      Files.createDirectories(file.getParent());
      Files.deleteIfExists(file);
      try {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException notPosix) {
        Files.createFile(file);
      } catch (FileAlreadyExistsException raced) {
        throw new IllegalStateException("Something else wrote " + file + " at the same time", raced);
      }
      Files.writeString(file, apiKey + "\n", StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write " + file, e);
    }
  }
}
