package dev.colloquy.bench;

import dev.colloquy.app.Colloquy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The development tenant's API key, which a node on a fresh data directory writes there: every
 * benchmark's requests carry it, since the API has no unauthenticated mode.
 */
final class DevKey {

  private static final String FILE = "dev-api-key";

  private DevKey() {}

  static String of(Colloquy colloquy) {
    Path file = colloquy.settings().storage().dataDir().resolve(FILE);
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("The node wrote no development key to " + file, e);
    }
  }
}
