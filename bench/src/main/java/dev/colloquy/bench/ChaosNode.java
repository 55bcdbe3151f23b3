package dev.colloquy.bench;

import dev.colloquy.app.cli.Cli;
import dev.colloquy.config.LimitsSettings;
import dev.colloquy.persistence.Database;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code colloquy serve} in a process of its own, on one data directory (embedded PostgreSQL) and
 * one HTTP port across restarts, so that it can be killed the way the kernel kills: {@code kill -9}
 * of the whole JVM, its PostgreSQL left behind for the next start to deal with.
 */
final class ChaosNode {

  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

  private final Path dataDir;
  private final int port;
  private final int clusterPort;
  private final String modelUrl;
  private final Path log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process process;

  /** {@code clusterPort} 0: any free port for Artery, chosen again on each start. */
  ChaosNode(Path dataDir, int port, int clusterPort, String modelUrl, Path log) {
    this.dataDir = dataDir;
    this.port = port;
    this.clusterPort = clusterPort;
    this.modelUrl = modelUrl;
    this.log = log;
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  /** Starts the node and returns how long it took to answer {@code /ready} with 200: its time to healthy. */
  Duration start() throws Exception {
    long started = System.nanoTime();
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(List.of("-Xmx512m", "-XX:+UseSerialGC"));
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Cli.class.getName(), "serve"));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().keySet().removeIf(name -> name.startsWith("COLLOQUY_"));
    builder.environment().putAll(Map.of(
        "COLLOQUY_HTTP_HOST", "127.0.0.1",
        "COLLOQUY_HTTP_PORT", Integer.toString(port),
        "COLLOQUY_CLUSTER_PORT", Integer.toString(clusterPort),
        "COLLOQUY_DATA_DIR", dataDir.toString(),
        "COLLOQUY_LLM_BASE_URL", modelUrl,
        "COLLOQUY_LLM_MODEL", "mock",
        "COLLOQUY_EMBEDDING_BASE_URL", modelUrl,
        "COLLOQUY_EMBEDDING_MODEL", "mock-embedding",
        "COLLOQUY_RATE_LIMIT_TURNS_PER_MINUTE", Integer.toString(LimitsSettings.MAX_RATE_PER_MINUTE),
        "COLLOQUY_RATE_LIMIT_REQUESTS_PER_MINUTE", Integer.toString(LimitsSettings.MAX_RATE_PER_MINUTE)));
    process = builder.start();
    awaitReady();
    return Duration.ofNanos(System.nanoTime() - started);
  }

  private void awaitReady() throws Exception {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("colloquy serve exited with " + process.exitValue() + " before it was ready; see " + log);
      }
      try {
        HttpResponse<Void> ready = http.send(HttpRequest.newBuilder(URI.create(baseUrl() + "/ready"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
        if (ready.statusCode() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // polled again below
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("colloquy serve was not ready within " + READY_TIMEOUT + "; see " + log);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  /** SIGKILL: the JVM ends at once, without running anything of its own; its PostgreSQL goes on. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM, and waits for the clean exit (the node drains and stops its PostgreSQL). */
  void stop() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        process.waitFor();
      }
    }
  }

  /** The development tenant's key, which the node wrote into its data directory on its first start. */
  String apiKey() throws IOException {
    return Files.readString(dataDir.resolve("dev-api-key")).strip();
  }

  /** A connection to the running node's embedded PostgreSQL, with the password it keeps in the data directory. */
  Connection database() throws IOException, SQLException {
    List<String> pid = Files.readAllLines(dataDir.resolve("postgres").resolve("postmaster.pid"));
    String password = Files.readString(dataDir.resolve(Database.PASSWORD_FILE)).strip();
    return DriverManager.getConnection("jdbc:postgresql://localhost:" + pid.get(3).strip() + "/postgres", "postgres",
        password);
  }
}
