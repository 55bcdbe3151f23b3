package dev.colloquy.app;

import dev.colloquy.http.Observability;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.JournalHealth;

/** What a node runs to be operated: its metrics registry and the background check of the journal. */
record Operations(PrometheusMetrics metrics, JournalHealth journal) implements AutoCloseable {

  static Operations start(Database database) {
    return new Operations(new PrometheusMetrics(), JournalHealth.start(database.connection()));
  }

  Observability observability(boolean logContent) {
    return new Observability(metrics, metrics::scrape, journal, logContent);
  }

  @Override
  public void close() {
    journal.close();
    metrics.close();
  }
}
