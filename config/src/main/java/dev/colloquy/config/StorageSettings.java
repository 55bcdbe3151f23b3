package dev.colloquy.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where data lives. Without an external database the engine runs an embedded PostgreSQL whose files
 * are under {@code dataDir}; its programs are unpacked once into {@code embeddedBinariesDir}, or, when
 * none is set, into the user's cache directory (see the persistence module's {@code EmbeddedBinaries}).
 */
public record StorageSettings(Path dataDir, Optional<DatabaseSettings> externalDb, Optional<Path> embeddedBinariesDir) {

  static StorageSettings create(SettingsReader reader) {
    Path dataDir = Path.of(reader.string("colloquy.storage.data-dir")).toAbsolutePath().normalize();
    Optional<DatabaseSettings> externalDb =
        reader
            .optionalString("colloquy.storage.db.url")
            .map(
                url ->
                    new DatabaseSettings(
                        url,
                        reader.string("colloquy.storage.db.user"),
                        reader.string("colloquy.storage.db.password")));
    Optional<Path> embeddedBinariesDir =
        reader.optionalString("colloquy.storage.embedded-binaries-dir").map(dir -> Path.of(dir).toAbsolutePath().normalize());
    return new StorageSettings(dataDir, externalDb, embeddedBinariesDir);
  }
}
