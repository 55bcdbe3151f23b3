package dev.colloquy.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code colloquy serve}: runs a node until SIGTERM. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = {"Runs the engine. Without COLLOQUY_DB_URL it starts an embedded PostgreSQL under the data directory;"
        + " without COLLOQUY_LLM_BASE_URL the offline responder answers.",
        "Every setting can also be given as an environment variable (see README)."})
final class ServeCommand implements Callable<Integer> {

  private static volatile boolean serving;

  @Option(names = "--port", description = "HTTP port (env COLLOQUY_HTTP_PORT, default 8080)")
  Integer port;

  @Option(names = "--data-dir", description = "Data directory (env COLLOQUY_DATA_DIR, default ./data)")
  Path dataDir;

  static boolean serving() {
    return serving;
  }

  @Override
  public Integer call() {
    Map<String, Object> overrides = new HashMap<>();
    if (port != null) {
      overrides.put("colloquy.http.port", port);
    }
    if (dataDir != null) {
      overrides.put("colloquy.storage.data-dir", dataDir.toString());
    }
    Config config = ConfigFactory.parseMap(overrides);
    Colloquy colloquy = Colloquy.start(config);
    serving = true;
    Runtime.getRuntime().addShutdownHook(new Thread(colloquy::close, "colloquy-shutdown"));
    return 0;
  }
}
