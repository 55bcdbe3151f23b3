package dev.colloquy.persistence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL of a Colloquy that was killed (SIGKILL, OOM killer, power to the JVM
 * only) keeps running without its parent and keeps its data directory, so the next start could not
 * use it. Only call this while holding the {@link DataDirLock}: that lock proves no live Colloquy
 * owns the server, so stopping it loses nothing; PostgreSQL's fast shutdown rolls back what no
 * client can commit any more and writes a checkpoint.
 */
public final class LeftoverPostmaster {

  private static final Logger log = LoggerFactory.getLogger(LeftoverPostmaster.class);

  /** Fast shutdown is a checkpoint; beyond this the server is killed and recovers from its WAL on start. */
  private static final Duration FAST_SHUTDOWN = Duration.ofSeconds(30);

  private LeftoverPostmaster() {}

  /**
   * Stops the server running on {@code pgData} when {@code postmaster.pid} names a live PostgreSQL
   * process for that directory; returns whether there was one.
   */
  public static boolean stopIfRunning(Path pgData) {
    Optional<ProcessHandle> postmaster = running(pgData);
    if (postmaster.isEmpty()) {
      return false;
    }
    ProcessHandle process = postmaster.get();
    log.warn("A PostgreSQL server (pid {}) from an earlier run that did not stop cleanly still runs on {}; stopping it",
        process.pid(), pgData);
    signalFastShutdown(process);
    if (!exited(process, FAST_SHUTDOWN)) {
      log.warn("PostgreSQL (pid {}) did not stop within {}; killing it, it will recover from its log on start",
          process.pid(), FAST_SHUTDOWN);
      process.destroyForcibly();
      if (!exited(process, Duration.ofSeconds(10))) {
        throw new IllegalStateException("Cannot stop the PostgreSQL server (pid " + process.pid()
            + ") left running on " + pgData + "; stop it by hand");
      }
    }
    return true;
  }

  /** The live postmaster of {@code pgData}, when its pid file names one: a pid reused by another program is not it. */
  public static Optional<ProcessHandle> running(Path pgData) {
    Path pidFile = pgData.resolve("postmaster.pid");
    if (!Files.isRegularFile(pidFile)) {
      return Optional.empty();
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + pidFile, e);
    }
    if (lines.size() < 2 || !lines.get(0).strip().matches("\\d+")) {
      return Optional.empty();
    }
    if (!sameDirectory(Path.of(lines.get(1).strip()), pgData)) {
      return Optional.empty();
    }
    return ProcessHandle.of(Long.parseLong(lines.get(0).strip()))
        .filter(ProcessHandle::isAlive)
        .filter(process -> process.info().command().map(command -> command.endsWith("postgres")).orElse(false));
  }

  private static boolean sameDirectory(Path recorded, Path pgData) {
    try {
      return Files.isSameFile(recorded, pgData);
    } catch (IOException e) {
      return false;
    }
  }

  /** SIGINT is PostgreSQL's fast shutdown; ProcessHandle can only send TERM (smart) or KILL. */
  private static void signalFastShutdown(ProcessHandle process) {
    try {
      Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid()))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (kill.waitFor(5, TimeUnit.SECONDS) && kill.exitValue() == 0) {
        return;
      }
    } catch (IOException e) {
      log.debug("kill -INT is not available", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.destroy();
  }

  private static boolean exited(ProcessHandle process, Duration timeout) {
    try {
      process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return !process.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }
}
