package dev.colloquy.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code colloquy} command in a JVM of its own (the mock model, a node), started with this JVM's
 * class path and flags, so a benchmark can measure it apart from its clients. Its output goes to a
 * file; closing it sends SIGTERM, then kills it if it has not exited.
 */
final class ChildJvm implements AutoCloseable {

  private static final Duration STOP_WAIT = Duration.ofSeconds(30);

  private final String name;
  private final Process process;
  private final Path output;

  private ChildJvm(String name, Process process, Path output) {
    this.name = name;
    this.process = process;
    this.output = output;
  }

  /**
   * Starts {@code colloquy <args>} with this JVM's flags (minus profiling agents and recordings, which
   * belong to this process) followed by {@code jvmOptions}.
   */
  static ChildJvm start(String name, List<String> jvmOptions, Map<String, String> environment, List<String> args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!option.startsWith("-XX:StartFlightRecording") && !option.startsWith("-agent")
          && !option.startsWith("-Xmx") && !option.startsWith("-Xms")) {
        command.add(option);
      }
    }
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.colloquy.app.cli.Cli");
    command.addAll(args);
    Path output = Files.createTempFile("colloquy-bench-" + name, ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    builder.environment().putAll(environment);
    return new ChildJvm(name, builder.start(), output);
  }

  /**
   * Runs {@code colloquy <args>} through the launcher this benchmark was started by, with the JVM
   * options it gives that command (for {@code serve}: its class cache); {@code environment} adds to
   * the launcher's, e.g. COLLOQUY_JAVA_OPTS.
   */
  static ChildJvm launch(String name, Map<String, String> environment, List<String> args) throws IOException {
    String launcher = System.getProperty("colloquy.launcher");
    if (launcher == null) {
      throw new IllegalStateException("run this benchmark through ./colloquy: it starts nodes with the launcher");
    }
    List<String> command = new ArrayList<>();
    command.add(launcher);
    command.addAll(args);
    Path output = Files.createTempFile("colloquy-bench-" + name, ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    builder.environment().putAll(environment);
    return new ChildJvm(name, builder.start(), output);
  }

  long pid() {
    return process.pid();
  }

  Path output() {
    return output;
  }

  /** Waits until the child has printed a line matching {@code pattern}; returns its first group. */
  String awaitOutput(Pattern pattern, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Matcher matcher = pattern.matcher(Files.readString(output));
      if (matcher.find()) {
        return matcher.groupCount() > 0 ? matcher.group(1) : matcher.group();
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited with " + process.exitValue() + "; its output is in " + output);
      }
      Thread.sleep(50); // polls a log file a child process writes
    }
    throw new IllegalStateException(name + " did not print " + pattern + " within " + timeout + "; see " + output);
  }

  void requireAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(name + " exited with " + process.exitValue() + "; its output is in " + output);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(STOP_WAIT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
