package dev.colloquy.bench;

import dev.colloquy.config.LimitsSettings;
import dev.colloquy.http.Json;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * A Colloquy node in a JVM of its own ({@code colloquy serve}) on a fresh data directory with its
 * embedded PostgreSQL, the mock as its model, and no tenant limits (a benchmark measures the engine).
 * It knows the CPU time the node and its PostgreSQL have spent.
 */
final class EngineProcess implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final int OPENING_CLIENTS = 32;

  private final ChildJvm jvm;
  private final Path dataDir;
  private final String baseUrl;
  private final String authorization;
  private final long postmaster;

  private EngineProcess(ChildJvm jvm, Path dataDir, String baseUrl, String authorization, long postmaster) {
    this.jvm = jvm;
    this.dataDir = dataDir;
    this.baseUrl = baseUrl;
    this.authorization = authorization;
    this.postmaster = postmaster;
  }

  /** {@code settings} are further -D settings (HOCON keys) of the node. */
  static EngineProcess start(String modelBaseUrl, List<String> jvmOptions, Map<String, String> settings,
      HttpClient client) throws Exception {
    Path dataDir = Files.createTempDirectory("colloquy-bench-engine");
    int port = freePort();
    List<String> options = new ArrayList<>(jvmOptions);
    options.add("-Dpekko.remote.artery.canonical.port=0");
    options.add("-Dcolloquy.session.passivation-timeout=1h");
    options.add("-Dcolloquy.limits.requests-per-minute=" + LimitsSettings.MAX_RATE_PER_MINUTE);
    options.add("-Dcolloquy.limits.turns-per-minute=" + LimitsSettings.MAX_RATE_PER_MINUTE);
    options.add("-Dcolloquy.limits.max-open-sessions=" + LimitsSettings.MAX_OPEN_SESSIONS);
    options.add("-Dcolloquy.limits.max-concurrent-streams=" + LimitsSettings.MAX_CONCURRENT_STREAMS);
    settings.forEach((key, value) -> options.add("-D" + key + "=" + value));
    ChildJvm jvm = ChildJvm.start("engine", options, Map.of(
        "COLLOQUY_DATA_DIR", dataDir.toString(),
        "COLLOQUY_HTTP_HOST", "127.0.0.1",
        "COLLOQUY_HTTP_PORT", Integer.toString(port),
        "COLLOQUY_LLM_BASE_URL", modelBaseUrl,
        "COLLOQUY_LLM_MODEL", "mock"), List.of("serve"));
    try {
      String baseUrl = "http://127.0.0.1:" + port;
      awaitReady(jvm, client, baseUrl);
      String key = Files.readString(dataDir.resolve("dev-api-key")).strip();
      long postmaster = ProcStat.postmasterUnder(dataDir)
          .orElseThrow(() -> new IllegalStateException("no PostgreSQL found under " + dataDir));
      return new EngineProcess(jvm, dataDir, baseUrl, "Bearer " + key, postmaster);
    } catch (Exception e) {
      jvm.close();
      delete(dataDir);
      throw e;
    }
  }

  String baseUrl() {
    return baseUrl;
  }

  String authorization() {
    return authorization;
  }

  long pid() {
    return jvm.pid();
  }

  /** CPU seconds the node's JVM has spent so far. */
  double engineCpuSeconds() {
    return ProcStat.cpuSeconds(jvm.pid());
  }

  /** CPU seconds the node's JIT compiler threads have spent so far (part of {@link #engineCpuSeconds}). */
  double compilerCpuSeconds() {
    return ProcStat.compilerCpuSeconds(jvm.pid());
  }

  /** CPU seconds its PostgreSQL has spent so far. */
  double databaseCpuSeconds() {
    return ProcStat.postgresCpuSeconds(postmaster);
  }

  long rssBytes() {
    return ProcStat.rssBytes(jvm.pid());
  }

  void requireAlive() {
    jvm.requireAlive();
  }

  /** Opens {@code count} sessions over the API, a few at a time. */
  List<String> openSessions(HttpClient client, int count) throws Exception {
    List<String> ids = Collections.synchronizedList(new ArrayList<>());
    try (ExecutorService openers = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < OPENING_CLIENTS; c++) {
        int share = count / OPENING_CLIENTS + (c < count % OPENING_CLIENTS ? 1 : 0);
        done.add(openers.submit(() -> {
          for (int i = 0; i < share; i++) {
            ids.add(openSession(client));
          }
          return null;
        }));
      }
      for (Future<?> future : done) {
        future.get();
      }
    }
    return List.copyOf(ids);
  }

  private String openSession(HttpClient client) throws Exception {
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/sessions"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
        .header("Authorization", authorization).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException("open session: HTTP " + response.statusCode() + " " + response.body());
    }
    return Json.MAPPER.readTree(response.body()).path("session_id").asText();
  }

  private static void awaitReady(ChildJvm jvm, HttpClient client, String baseUrl) throws Exception {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      jvm.requireAlive();
      try {
        HttpResponse<Void> ready = client.send(HttpRequest.newBuilder(URI.create(baseUrl + "/ready")).build(),
            HttpResponse.BodyHandlers.discarding());
        if (ready.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100); // polls a starting child process
    }
    throw new IllegalStateException("the node was not ready within " + START_TIMEOUT + "; see " + jvm.output());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    jvm.close();
    delete(dataDir);
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }
}
