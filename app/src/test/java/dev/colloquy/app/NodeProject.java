package dev.colloquy.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * An npm project of the repository (a client, the web app, a seed's client) that a test runs with
 * the machine's Node: its dependencies come from its lockfile ({@code npm ci}, only when
 * node_modules is missing or older than the lockfile), never a downloaded Node or browser.
 */
public final class NodeProject {

  /** What a finished Node process printed and how it ended. */
  public record Run(int exitCode, String stdout, String stderr) {
    public String output() {
      return "exit " + exitCode + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
    }
  }

  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);

  private final Path dir;

  private NodeProject(Path dir) {
    this.dir = dir;
  }

  /**
   * The project at {@code relativeToRepository} (e.g. {@code "clients/typescript"}), installed.
   * Without Node on the machine the calling test is skipped with that reason printed.
   */
  public static synchronized NodeProject installed(String relativeToRepository) throws Exception {
    Assumptions.assumeTrue(onPath("node") && onPath("npm"),
        "Skipped: node and npm are needed for this test and are not on the PATH");
    Path dir = repository().resolve(relativeToRepository);
    if (!Files.isRegularFile(dir.resolve("package.json"))) {
      throw new IllegalStateException("No package.json in " + dir);
    }
    NodeProject project = new NodeProject(dir);
    if (project.needsInstall()) {
      Run install = project.exec(List.of("npm", "ci", "--no-audit", "--no-fund"), Map.of(), INSTALL_TIMEOUT);
      if (install.exitCode() != 0) {
        throw new IllegalStateException("npm ci failed in " + dir + "\n" + install.output());
      }
    }
    return project;
  }

  public Path dir() {
    return dir;
  }

  /** Runs {@code node <script> args…} in the project's directory with extra environment variables. */
  public Run node(String script, List<String> args, Map<String, String> env, Duration timeout) throws Exception {
    List<String> command = new ArrayList<>(List.of("node", script));
    command.addAll(args);
    return exec(command, env, timeout);
  }

  /** Runs any command (e.g. {@code npm run build}) in the project's directory. */
  public Run exec(List<String> command, Map<String, String> env, Duration timeout) throws Exception {
    Path out = Files.createTempFile("node-out", ".txt");
    Path err = Files.createTempFile("node-err", ".txt");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
          .redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().putAll(env);
      Process process = builder.start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
        return new Run(-1, Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8) + "\n(killed after " + timeout + ")");
      }
      return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private boolean needsInstall() throws IOException {
    Path modules = dir.resolve("node_modules");
    Path marker = modules.resolve(".package-lock.json");
    Path lock = dir.resolve("package-lock.json");
    return !Files.isRegularFile(marker)
        || Files.getLastModifiedTime(marker).compareTo(Files.getLastModifiedTime(lock)) < 0;
  }

  /** The repository's root: the nearest parent of the working directory holding {@code mvnw}. */
  static Path repository() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("Cannot find the repository root above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  private static boolean onPath(String command) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String entry : path.split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(entry, command))) {
        return true;
      }
    }
    return false;
  }
}
