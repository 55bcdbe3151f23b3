package dev.colloquy.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where data lives. Without an external database the engine runs an embedded PostgreSQL whose files
 * are under {@code dataDir}.
 */
public record StorageSettings(Path dataDir, Optional<DatabaseSettings> externalDb) {

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
    return new StorageSettings(dataDir, externalDb);
  }
}
