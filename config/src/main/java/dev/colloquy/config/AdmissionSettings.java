package dev.colloquy.config;

import java.time.Duration;

/**
 * How many new turns a node takes on at once. A turn is being accepted from its request until its
 * session has journaled it, and starting until its first token (or its end); {@code maxAccepting}
 * of them at a time, and as many starting as the node's adaptive limit allows: between
 * {@code minStarting} and {@code maxStarting}, lower while starts take longer than they used to (see
 * the http module's Admission). {@code queueSize} more requests wait up to {@code queueTimeout} for
 * places, and any further one is refused at once (503 OVERLOADED, Retry-After): an overloaded node
 * refuses new turns early instead of failing the ones it has accepted.
 */
public record AdmissionSettings(int maxAccepting, int minStarting, int maxStarting, int queueSize,
    Duration queueTimeout) {

  public AdmissionSettings {
    if (minStarting > maxStarting) {
      throw new IllegalArgumentException("minStarting " + minStarting + " is above maxStarting " + maxStarting);
    }
  }

  /** A fixed bound of {@code maxStarting} turns starting at once, however long they take. */
  public AdmissionSettings(int maxAccepting, int maxStarting, int queueSize, Duration queueTimeout) {
    this(maxAccepting, maxStarting, maxStarting, queueSize, queueTimeout);
  }

  static AdmissionSettings create(SettingsReader reader) {
    int maxStarting = reader.intInRange("colloquy.admission.max-starting", 1, 1_000_000);
    // A max-starting set below the floor is a fixed bound: the operator asked for no more than that.
    int minStarting = Math.min(maxStarting, reader.intInRange("colloquy.admission.min-starting", 1, 1_000_000));
    return new AdmissionSettings(
        reader.intInRange("colloquy.admission.max-accepting", 1, 1_000_000),
        minStarting,
        maxStarting,
        reader.intInRange("colloquy.admission.queue-size", 0, 10_000_000),
        reader.positiveDuration("colloquy.admission.queue-timeout"));
  }
}
