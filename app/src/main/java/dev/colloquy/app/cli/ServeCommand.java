package dev.colloquy.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.app.GracefulShutdown;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code colloquy serve}: runs a node until SIGTERM, then drains it and exits 0. */
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
    exitCleanlyOnTerm(colloquy);
    exitWhenDowned(colloquy);
    return 0;
  }

  /** Exit status of a node the cluster downed (the minority of a partition): its supervisor starts it again. */
  static final int DOWNED_EXIT_CODE = 3;

  /**
   * A node the split brain resolver downed has stopped its actor system and is no longer a member;
   * the process ends too, with {@link #DOWNED_EXIT_CODE}, so that its supervisor (Docker, Kubernetes,
   * systemd) starts it again and it joins the cluster afresh instead of lingering outside it.
   */
  private static void exitWhenDowned(Colloquy colloquy) {
    colloquy.system().getWhenTerminated().thenRun(() -> {
      boolean downed = org.apache.pekko.actor.CoordinatedShutdown.get(colloquy.system()).getShutdownReason()
          .map(reason -> reason.equals(org.apache.pekko.actor.CoordinatedShutdown.clusterDowningReason()))
          .orElse(false);
      if (downed) {
        System.err.println("colloquy: this node was downed by the cluster (split brain resolver); exiting to be restarted");
        System.exit(DOWNED_EXIT_CODE);
      }
    });
  }

  /**
   * SIGTERM is how orchestrators ask a process to stop, so it is a clean stop: the node drains its
   * turns and hands its shards over, then exits 0. Left to the JVM, TERM would run the shutdown
   * hooks and exit 143. Other ways to stop (Ctrl-C, System.exit) still close through the hook.
   */
  private static void exitCleanlyOnTerm(Colloquy colloquy) {
    sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> {
      GracefulShutdown.run(colloquy.system());
      System.exit(0);
    });
  }
}
