package dev.colloquy.bench;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
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
    String cache = classCache();
    try (EngineProcess node = EngineProcess.start(dataDir, false, Map.of(), options, Map.of(), client, true)) {
      Duration startup = node.startup();
      Thread.sleep(Duration.ofSeconds(idleSeconds)); // the node idles before its memory is read
      System.out.printf("| %d | %s | %s | %d ms | %.0f MiB | %s |%n", run, kind, cache,
          startup.toMillis(), node.rssBytes() / (double) (1 << 20), Machine.load());
    }
  }

  /**
   * What the launcher starts this node from (see ./colloquy): its class cache, or the record a previous
   * node left as it exited, which this start assembles into the cache first, or nothing, in which case
   * this node records the classes it uses as it exits; or none, when the launcher is told to start without.
   */
  private static String classCache() throws IOException {
    if ("off".equals(System.getenv("COLLOQUY_CLASS_CACHE"))) {
      return "off (COLLOQUY_CLASS_CACHE=off)";
    }
    Path target = Path.of(System.getProperty("colloquy.launcher", "colloquy")).toAbsolutePath().getParent()
        .resolve("app/target");
    if (Files.exists(target.resolve("colloquy-serve.aot")) || Files.exists(target.resolve("colloquy-serve.jsa"))) {
      return "yes";
    }
    try (Stream<Path> files = Files.list(target)) {
      boolean recorded = files.anyMatch(file -> file.getFileName().toString().matches("colloquy-serve\\..*\\.aotconf")
          && file.toFile().length() > 0);
      return recorded ? "assembled by this start (from the last node's record)" : "no (this node records it as it exits)";
    }
  }
}
