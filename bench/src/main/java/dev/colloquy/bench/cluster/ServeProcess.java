package dev.colloquy.bench.cluster;

import dev.colloquy.app.cli.Cli;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One {@code colloquy serve} in a JVM of its own, configured as an operator configures it
 * (environment variables), so that it can be stopped the way an operator or the kernel stops it:
 * SIGTERM or SIGKILL. Its output goes to a log file.
 */
public final class ServeProcess {

  private static final HttpClient PROBE = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private final int index;
  private final Map<String, String> env;
  private final List<String> launcher;
  private final Path log;
  private Process process;

  private ServeProcess(int index, Map<String, String> env, List<String> launcher, Path log) {
    this.index = index;
    this.env = env;
    this.launcher = List.copyOf(launcher);
    this.log = log;
  }

  /** Starts the process and returns at once; {@link #awaitReady} waits for it. */
  static ServeProcess start(int index, Map<String, String> env, List<String> launcher, Path log) throws IOException {
    ServeProcess node = new ServeProcess(index, env, launcher, log);
    node.launch();
    return node;
  }

  private void launch() throws IOException {
    List<String> command = new ArrayList<>(launcher);
    command.add(ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    // The product's JSON logs, also when a test's class path holds a logback-test.xml: LocalCluster reads them.
    command.add("-Dlogback.configurationFile=logback.xml");
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Cli.class.getName(), "serve"));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().keySet().removeIf(name -> name.startsWith("COLLOQUY_"));
    builder.environment().putAll(env);
    process = builder.start();
  }

  public int index() {
    return index;
  }

  public String httpUrl() {
    return "http://" + env.get("COLLOQUY_HTTP_HOST") + ":" + env.get("COLLOQUY_HTTP_PORT");
  }

  public String managementUrl() {
    return "http://" + env.get("COLLOQUY_CLUSTER_HOST") + ":" + env.get("COLLOQUY_MANAGEMENT_PORT");
  }

  /** The node's cluster address as the members list shows it. */
  public String clusterAddress() {
    return "pekko://colloquy@" + env.get("COLLOQUY_CLUSTER_HOST") + ":" + env.get("COLLOQUY_CLUSTER_PORT");
  }

  public Path log() {
    return log;
  }

  public boolean alive() {
    return process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  /** Waits until the management endpoint's {@code /ready} answers 200. */
  public void awaitReady(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (status(managementUrl() + "/ready") != 200) {
      if (!process.isAlive()) {
        throw new IllegalStateException("node " + index + " exited with " + process.exitValue()
            + " before it was ready; see " + log);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("node " + index + " was not ready within " + timeout + ": /ready says "
            + body(managementUrl() + "/ready") + "; members: " + body(managementUrl() + "/cluster/members"));
      }
      Thread.sleep(200);
    }
  }

  /** The status of a GET, or -1 when nothing answers. */
  public static int status(String url) {
    try {
      return PROBE.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3)).GET().build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String body(String url) {
    try {
      HttpResponse<String> response = PROBE.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3))
          .GET().build(), HttpResponse.BodyHandlers.ofString());
      return response.statusCode() + " " + response.body();
    } catch (IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e.toString();
    }
  }

  /** Waits up to {@code timeout} for the process to end by itself; its exit status, or empty when it still runs. */
  public java.util.OptionalInt awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
        ? java.util.OptionalInt.of(process.exitValue()) : java.util.OptionalInt.empty();
  }

  /** SIGKILL: the process ends at once, without running anything of its own. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM, as an orchestrator stops a process; returns once it has exited, with its exit status. */
  public int terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("node " + index + " did not exit within " + timeout + " of SIGTERM");
    }
    return process.exitValue();
  }

  /** Starts it again with the same settings (ports, data directory). */
  public void restart() throws IOException {
    launch();
  }

  /** Stops it whatever state it is in: SIGTERM with a deadline, then SIGKILL. */
  void stop() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    }
  }
}
