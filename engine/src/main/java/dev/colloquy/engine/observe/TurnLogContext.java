package dev.colloquy.engine.observe;

import java.util.Map;
import org.slf4j.MDC;

/**
 * The log context of a turn: {@code trace_id}, {@code tenant_id}, {@code session_id} and
 * {@code turn_id} on every line written about it, whichever actor or thread writes it. The tenant is
 * named by its id, never its name, and no user is named: an operator filters on a tenant without the
 * log carrying who its customers are.
 */
public final class TurnLogContext {

  private TurnLogContext() {}

  public static Map<String, String> of(String traceId, String tenantId, String sessionId, String turnId) {
    return Map.of(
        "trace_id", traceId == null ? "" : traceId,
        "tenant_id", tenantId == null ? "" : tenantId,
        "session_id", sessionId,
        "turn_id", turnId);
  }

  /** Runs {@code logging} with the turn's context, for a line written outside the turn's own actors. */
  public static void run(Map<String, String> context, Runnable logging) {
    Map<String, String> previous = MDC.getCopyOfContextMap();
    context.forEach(MDC::put);
    try {
      logging.run();
    } finally {
      if (previous == null) {
        MDC.clear();
      } else {
        MDC.setContextMap(previous);
      }
    }
  }

  /** Work for another thread that keeps the log context of the thread that hands it over. */
  public static Runnable carried(Runnable work) {
    Map<String, String> context = MDC.getCopyOfContextMap();
    if (context == null || context.isEmpty()) {
      return work;
    }
    return () -> run(context, work);
  }
}
