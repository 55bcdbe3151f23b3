package dev.colloquy.bench;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.config.LimitsSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A real Colloquy for one benchmark: embedded PostgreSQL in a fresh temporary data directory, no
 * model configured (the offline responder answers), removed with its data on close.
 */
final class BenchNode implements AutoCloseable {

  private final Path dataDir;
  private final Colloquy colloquy;

  private BenchNode(Path dataDir, Colloquy colloquy) {
    this.dataDir = dataDir;
    this.colloquy = colloquy;
  }

  static BenchNode start(Map<String, Object> overrides) throws IOException {
    Path dataDir = Files.createTempDirectory("colloquy-bench");
    Map<String, Object> settings = new HashMap<>();
    settings.put("colloquy.http.host", "127.0.0.1");
    settings.put("colloquy.http.port", 0);
    settings.put("colloquy.storage.data-dir", dataDir.toString());
    settings.put("pekko.remote.artery.canonical.port", 0);
    // A benchmark measures the engine, not a tenant's limits: one key sends thousands of turns a
    // minute over as many sessions and streams as the benchmark asks for (and as many turns of a
    // session as it asks for through the Edge dialect).
    settings.put("colloquy.limits.requests-per-minute", LimitsSettings.MAX_RATE_PER_MINUTE);
    settings.put("colloquy.limits.turns-per-minute", LimitsSettings.MAX_RATE_PER_MINUTE);
    settings.put("colloquy.limits.max-open-sessions", LimitsSettings.MAX_OPEN_SESSIONS);
    settings.put("colloquy.limits.max-concurrent-streams", LimitsSettings.MAX_CONCURRENT_STREAMS);
    settings.put("colloquy.edge.session-requests-per-minute", LimitsSettings.MAX_RATE_PER_MINUTE);
    // The offline rules route messages, so that a turn makes one model call, as the figures of
    // RESULTS.md measured before the agent routed messages (the router's call is the agent's, not the engine's).
    settings.put("colloquy.agent.intent-router", "offline");
    settings.putAll(overrides);
    try {
      return new BenchNode(dataDir, Colloquy.start(ConfigFactory.parseMap(settings)));
    } catch (RuntimeException e) {
      delete(dataDir);
      throw e;
    }
  }

  Colloquy colloquy() {
    return colloquy;
  }

  /** Where the node's data (and its embedded PostgreSQL's files) live. */
  Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() {
    colloquy.close();
    delete(dataDir);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
