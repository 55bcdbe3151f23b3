package dev.colloquy.config;

import java.time.Duration;

/**
 * How a node stops on SIGTERM: it refuses new turns at once, and the turns already running get
 * {@code drainTimeout} to finish before they are recorded as interrupted.
 */
public record ShutdownSettings(Duration drainTimeout) {

  static ShutdownSettings create(SettingsReader reader) {
    return new ShutdownSettings(reader.positiveDuration("colloquy.shutdown.drain-timeout"));
  }
}
