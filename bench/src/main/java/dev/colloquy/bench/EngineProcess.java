package dev.colloquy.bench;

import dev.colloquy.config.LimitsSettings;
import dev.colloquy.http.Json;
import dev.colloquy.persistence.PlannedPort;
import java.io.IOException;
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
import java.util.HashMap;
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
  private static final int OPEN_ATTEMPTS = 30;

  private final ChildJvm jvm;
  private final Path dataDir;
  private final boolean deleteOnClose;
  private final String baseUrl;
  private final String authorization;
  private final long postmaster;
  private final Duration startup;

  private EngineProcess(ChildJvm jvm, Path dataDir, boolean deleteOnClose, String baseUrl, String authorization,
      long postmaster, Duration startup) {
    this.jvm = jvm;
    this.dataDir = dataDir;
    this.deleteOnClose = deleteOnClose;
    this.baseUrl = baseUrl;
    this.authorization = authorization;
    this.postmaster = postmaster;
    this.startup = startup;
  }

  /** {@code settings} are further -D settings (HOCON keys) of the node. */
  static EngineProcess start(String modelBaseUrl, List<String> jvmOptions, Map<String, String> settings,
      HttpClient client) throws Exception {
    Map<String, String> environment = new HashMap<>();
    environment.put("COLLOQUY_LLM_BASE_URL", modelBaseUrl);
    environment.put("COLLOQUY_LLM_MODEL", "mock");
    return start(Files.createTempDirectory("colloquy-bench-engine"), true, environment, jvmOptions, settings, client);
  }

  /**
   * A node on {@code dataDir}, with no model unless {@code environment} names one, its data deleted on
   * close when {@code deleteOnClose}.
   */
  static EngineProcess start(Path dataDir, boolean deleteOnClose, Map<String, String> environment,
      List<String> jvmOptions, Map<String, String> settings, HttpClient client) throws Exception {
    return start(dataDir, deleteOnClose, environment, jvmOptions, settings, client, false);
  }

  /**
   * {@code viaLauncher}: the node is started as a user starts it, {@code ./colloquy serve}, with the
   * launcher's options for it ({@code jvmOptions} then go in COLLOQUY_JAVA_OPTS).
   */
  static EngineProcess start(Path dataDir, boolean deleteOnClose, Map<String, String> environment,
      List<String> jvmOptions, Map<String, String> settings, HttpClient client, boolean viaLauncher) throws Exception {
    int port = PlannedPort.forAnotherServer();
    List<String> options = new ArrayList<>(jvmOptions);
    options.add("-Dpekko.remote.artery.canonical.port=0");
    options.add("-Dcolloquy.session.passivation-timeout=1h");
    options.add("-Dcolloquy.limits.requests-per-minute=" + LimitsSettings.MAX_RATE_PER_MINUTE);
    options.add("-Dcolloquy.limits.turns-per-minute=" + LimitsSettings.MAX_RATE_PER_MINUTE);
    options.add("-Dcolloquy.limits.max-open-sessions=" + LimitsSettings.MAX_OPEN_SESSIONS);
    options.add("-Dcolloquy.limits.max-concurrent-streams=" + LimitsSettings.MAX_CONCURRENT_STREAMS);
    settings.forEach((key, value) -> options.add("-D" + key + "=" + value));
    Map<String, String> variables = new HashMap<>(environment);
    variables.put("COLLOQUY_DATA_DIR", dataDir.toString());
    variables.put("COLLOQUY_HTTP_HOST", "127.0.0.1");
    variables.put("COLLOQUY_HTTP_PORT", Integer.toString(port));
    long starting = System.nanoTime();
    ChildJvm jvm;
    if (viaLauncher) {
      variables.put("COLLOQUY_JAVA_OPTS", String.join(" ", options));
      jvm = ChildJvm.launch("engine", variables, List.of("serve"));
    } else {
      jvm = ChildJvm.start("engine", options, variables, List.of("serve"));
    }
    try {
      String baseUrl = "http://127.0.0.1:" + port;
      awaitReady(jvm, client, baseUrl);
      Duration startup = Duration.ofNanos(System.nanoTime() - starting);
      String key = Files.readString(dataDir.resolve("dev-api-key")).strip();
      long postmaster = ProcStat.postmasterUnder(dataDir)
          .orElseThrow(() -> new IllegalStateException("no PostgreSQL found under " + dataDir));
      return new EngineProcess(jvm, dataDir, deleteOnClose, baseUrl, "Bearer " + key, postmaster, startup);
    } catch (Exception e) {
      jvm.close();
      if (deleteOnClose) {
        delete(dataDir);
      }
      throw e;
    }
  }

  /** From starting the process to its first 200 on /ready. */
  Duration startup() {
    return startup;
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
    HttpResponse<String> response;
    for (int attempt = 1; ; attempt++) {
      response = client.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/sessions"))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
          .header("Authorization", authorization).build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 503 || attempt == OPEN_ATTEMPTS) {
        break;
      }
      // A node starved of CPU answers "try again" (LIMITS_UNAVAILABLE, SESSION_UNAVAILABLE): a client does.
      Thread.sleep(Duration.ofSeconds(Long.parseLong(response.headers().firstValue("Retry-After").orElse("1").strip())));
    }
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

  @Override
  public void close() throws Exception {
    jvm.close();
    if (deleteOnClose) {
      delete(dataDir);
    }
  }

  static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }
}
