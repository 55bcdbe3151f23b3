package dev.colloquy.config;

import java.time.Duration;

/**
 * How many new turns a node takes on at once. A turn is being accepted from its request until its
 * session has journaled it, and starting until its first token (or its end); {@code maxAccepting}
 * and {@code maxStarting} of them at a time, {@code queueSize} more requests wait up to
 * {@code queueTimeout} for places, and any further one is refused at once (503 OVERLOADED,
 * Retry-After): an overloaded node refuses new turns early instead of failing the ones it has accepted.
 */
public record AdmissionSettings(int maxAccepting, int maxStarting, int queueSize, Duration queueTimeout) {

  static AdmissionSettings create(SettingsReader reader) {
    return new AdmissionSettings(
        reader.intInRange("colloquy.admission.max-accepting", 1, 1_000_000),
        reader.intInRange("colloquy.admission.max-starting", 1, 1_000_000),
        reader.intInRange("colloquy.admission.queue-size", 0, 10_000_000),
        reader.positiveDuration("colloquy.admission.queue-timeout"));
  }
}
