package dev.colloquy.http;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What the API needs for operating it: where its metrics go and how they are scraped, whether the
 * journal is reachable (writes are refused while it is not), and whether log lines may carry
 * request content (not in production).
 */
public record Observability(
    HttpMetrics metrics, Supplier<String> scrape, BooleanSupplier journalReachable, boolean logContent) {

  /** No metrics, a journal taken to be reachable, content allowed in logs: for tests of other concerns. */
  public static Observability none() {
    return new Observability(HttpMetrics.NONE, () -> "", () -> true, true);
  }
}
