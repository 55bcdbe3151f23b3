package dev.colloquy.bench;

import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * How fast a node is healthy and how much memory it holds idle, started as a user starts it: {@code
 * ./colloquy serve} (the launcher's JVM options and class cache), no model, embedded PostgreSQL. A
 * fresh start on an empty data directory (the database is created and migrated), then a warm start
 * on the same directory; each says whether the launcher's class cache was there to start from.
 */
@Command(name = "startup", mixinStandardHelpOptions = true,
    description = "Time from starting `colloquy serve` to a healthy node (fresh and warm) and its idle RSS; prints Markdown.")
final class StartupBench implements Callable<Integer> {

  @Option(names = "--runs", defaultValue = "3", description = "Fresh and warm starts each (default ${DEFAULT-VALUE})")
  int runs;

  @Option(names = "--idle-seconds", defaultValue = "10",
      description = "How long a node idles before its RSS is read (default ${DEFAULT-VALUE})")
  int idleSeconds;

  @Option(names = "--java-opts", defaultValue = "", description = "Further JVM options of the node (split on spaces)")
  String javaOpts;

  @Override
  public Integer call() throws Exception {
    System.out.println(Machine.describe(true));
    List<String> options = javaOpts.isBlank() ? List.of() : Arrays.asList(javaOpts.trim().split("\\s+"));
    System.out.println("| run | start | class cache | to healthy | idle RSS after " + idleSeconds + " s | load (1/5/15 min) |");
    System.out.println("|---|---|---|---|---|---|");
    List<Path> dirs = new ArrayList<>();
    try (HttpClient client = HttpClient.newHttpClient()) {
      for (int run = 1; run <= runs; run++) {
        Path dataDir = Files.createTempDirectory("colloquy-bench-startup");
        dirs.add(dataDir);
        measure(client, "fresh", run, dataDir, options);
        measure(client, "warm", run, dataDir, options);
      }
    } finally {
      for (Path dir : dirs) {
        EngineProcess.delete(dir);
      }
    }
    return 0;
  }

  private void measure(HttpClient client, String kind, int run, Path dataDir, List<String> options) throws Exception {
    boolean cached = classCached();
    try (EngineProcess node = EngineProcess.start(dataDir, false, Map.of(), options, Map.of(), client, true)) {
      Duration startup = node.startup();
      Thread.sleep(Duration.ofSeconds(idleSeconds)); // the node idles before its memory is read
      System.out.printf("| %d | %s | %s | %d ms | %.0f MiB | %s |%n", run, kind, cached ? "yes" : "no (this start writes it)",
          startup.toMillis(), node.rssBytes() / (double) (1 << 20), Machine.load());
    }
  }

  /** Whether the launcher has a class cache for serve (see ./colloquy). */
  private static boolean classCached() {
    Path root = Path.of(System.getProperty("colloquy.launcher", "colloquy")).toAbsolutePath().getParent();
    return Files.exists(root.resolve("app/target/colloquy-serve.aot"))
        || Files.exists(root.resolve("app/target/colloquy-serve.jsa"));
  }
}
