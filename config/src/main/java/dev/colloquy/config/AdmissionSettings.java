package dev.colloquy.config;

import java.time.Duration;

/**
 * How many new turns a node takes on at once. A turn is starting from its request until its first
 * token (or its end); {@code maxStarting} of them run at a time, {@code queueSize} more requests
 * wait up to {@code queueTimeout} for a place, and any further one is refused at once (503
 * OVERLOADED, Retry-After): an overloaded node refuses new turns early instead of failing the ones
 * it has accepted.
 */
public record AdmissionSettings(int maxStarting, int queueSize, Duration queueTimeout) {

  static AdmissionSettings create(SettingsReader reader) {
    return new AdmissionSettings(
        reader.intInRange("colloquy.admission.max-starting", 1, 1_000_000),
        reader.intInRange("colloquy.admission.queue-size", 0, 10_000_000),
        reader.positiveDuration("colloquy.admission.queue-timeout"));
  }
}
