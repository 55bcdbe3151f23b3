package dev.colloquy.app;

import dev.colloquy.app.cli.Cli;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.PlannedPort;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The real application ({@code colloquy serve}) in a JVM of its own, configured the way a user
 * configures it (environment variables), so that a test can stop it the way an operator or the
 * kernel does: SIGTERM or SIGKILL. Its output goes to a file that {@link ChildColloquies} prints
 * when a test fails.
 */
final class ChildColloquy {

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private final Process process;
  private final Path dataDir;
  private Api api;

  private ChildColloquy(Process process, int port, Path dataDir) {
    this.process = process;
    this.dataDir = dataDir;
    this.api = new Api("http://127.0.0.1:" + port);
  }

  /** Starts {@code serve} on {@code dataDir} against the mock, with {@code env} added; returns once it is ready. */
  static ChildColloquy start(Path dataDir, MockLlmServer mock, Map<String, String> env, Path output) throws Exception {
    return start(dataDir, mock, env, output, "512m");
  }

  /** The same with the JVM's heap limit ({@code -Xmx}), e.g. {@code "192m"}. */
  static ChildColloquy start(Path dataDir, MockLlmServer mock, Map<String, String> env, Path output, String heap)
      throws Exception {
    ChildColloquy child = launch(dataDir, mock, env, output, heap);
    child.awaitReady();
    return child;
  }

  /**
   * Starts {@code serve} and returns at once, for nodes that become ready only together (Cluster
   * Bootstrap waits for the others); {@link #awaitReady} waits for it.
   */
  static ChildColloquy launch(Path dataDir, MockLlmServer mock, Map<String, String> env, Path output, String heap)
      throws Exception {
    int port = PlannedPort.forAnotherServer();
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(List.of("-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.addAll(List.of("-Dcolloquy.llm.max-retries=0", "-cp", System.getProperty("java.class.path"),
        Cli.class.getName(), "serve"));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
    Map<String, String> environment = builder.environment();
    environment.keySet().removeIf(name -> name.startsWith("COLLOQUY_"));
    Map<String, String> settings = new HashMap<>();
    settings.put("COLLOQUY_HTTP_HOST", "127.0.0.1");
    settings.put("COLLOQUY_HTTP_PORT", Integer.toString(port));
    settings.put("COLLOQUY_CLUSTER_PORT", "0");
    settings.put("COLLOQUY_DATA_DIR", dataDir.toString());
    settings.put("COLLOQUY_LLM_BASE_URL", mock.baseUrl());
    settings.put("COLLOQUY_LLM_MODEL", TestColloquy.MODEL);
    // The mock's embeddings spare every child the seconds of loading the in-process model.
    settings.put("COLLOQUY_EMBEDDING_BASE_URL", mock.baseUrl());
    settings.put("COLLOQUY_EMBEDDING_MODEL", "mock-embedding");
    settings.putAll(env);
    environment.putAll(settings);
    return new ChildColloquy(builder.start(), port, dataDir);
  }

  /** Returns once its API's {@code /ready} answers 200, and from then on uses the development key it wrote. */
  void awaitReady() throws Exception {
    awaitApiReady();
    useDevKey();
  }

  private void awaitApiReady() throws Exception {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new AssertionError("colloquy serve exited with " + process.exitValue() + " before it was ready");
      }
      try {
        if (api.get("/ready").status() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // polled again below
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("colloquy serve was not ready within " + READY_TIMEOUT);
      }
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }

  /** {@code serve} left the development tenant's key in the data directory when it created the tenant. */
  private void useDevKey() throws IOException {
    Path keyFile = dataDir.resolve("dev-api-key");
    if (java.nio.file.Files.exists(keyFile)) {
      api = api.withKey(java.nio.file.Files.readString(keyFile).strip());
    }
  }

  Api api() {
    return api;
  }

  /** SIGKILL: the process ends at once, without running anything of its own. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM, as an orchestrator stops a process; returns at once. */
  void terminate() {
    process.destroy();
  }

  /** Waits for the process to end and returns its exit status. */
  int exitCode(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("colloquy serve did not exit within " + timeout);
    }
    return process.exitValue();
  }

  /** Stops it whatever state it is in: SIGTERM with a deadline, then SIGKILL, then its children. */
  void stop() throws InterruptedException {
    List<ProcessHandle> descendants = process.descendants().toList();
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    }
    descendants.forEach(ProcessHandle::destroyForcibly);
  }
}
