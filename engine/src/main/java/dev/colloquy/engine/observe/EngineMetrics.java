package dev.colloquy.engine.observe;

import java.time.Duration;

/**
 * What the engine reports about its work, for whatever the app exports it to (Prometheus in
 * Colloquy). The engine knows nothing of the exporter; every method defaults to doing nothing, so
 * tests and tools that do not care pass {@link #NONE}.
 */
public interface EngineMetrics {

  EngineMetrics NONE = new EngineMetrics() {};

  /** A session entity came into memory (created or recovered). */
  default void sessionLoaded() {}

  /** A session entity left memory, whatever the reason. */
  default void sessionUnloaded() {}

  /** A session left memory because it was idle; it is still open. */
  default void sessionPassivated() {}

  default void sessionClosed(String reason) {}

  /** How long a journal write took, from the entity's persist to its completion. */
  default void journalWrite(Duration latency) {}

  /** A turn ended; {@code outcome} is completed, failed or cancelled. */
  default void turnEnded(String outcome, Duration latency) {}

  default void tokens(String model, long in, long out) {}

  /** A failure with a stable error code; {@code source} says where it was seen (http, turn, run). */
  default void error(String source, String code) {}

  /** A turn routed its message as {@code intent} (conversational, domain_query, out_of_scope). */
  default void intentRouted(String intent) {}

  /** A turn handed its session to a human for {@code reason}. */
  default void escalated(String reason) {}

  /** A webhook attempt ended: {@code outcome} is delivered, retry (it failed and will be retried) or failed (given up). */
  default void webhookAttempt(String outcome) {}
}
