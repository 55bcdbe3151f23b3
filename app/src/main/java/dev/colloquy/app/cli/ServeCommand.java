package dev.colloquy.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.app.GracefulShutdown;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code colloquy serve}: runs a node until SIGTERM, then drains it and exits 0 (3 when the cluster downed it). */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = {"Runs the engine. Without COLLOQUY_DB_URL it starts an embedded PostgreSQL under the data directory;"
        + " without COLLOQUY_LLM_BASE_URL the offline responder answers.",
        "Every setting can also be given as an environment variable (see README)."})
final class ServeCommand implements Callable<Integer> {

  @Option(names = "--port", description = "HTTP port (env COLLOQUY_HTTP_PORT, default 8080)")
  Integer port;

  @Option(names = "--data-dir", description = "Data directory (env COLLOQUY_DATA_DIR, default ./data)")
  Path dataDir;

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
    Runtime.getRuntime().addShutdownHook(new Thread(colloquy::close, "colloquy-shutdown"));
    exitCleanlyOnTerm(colloquy);
    ShutdownWatchdog.arm(colloquy.system(), EXIT_GRACE, () -> exitStatusOf(colloquy.system()));
    // The main thread stays until the actor system has stopped and then gives the exit status. Left to
    // the JVM, the process would end with 0 as soon as the actor system's threads were gone, whatever
    // the reason, racing any callback that meant to exit with another status.
    colloquy.system().getWhenTerminated().toCompletableFuture().join();
    return exitStatusOf(colloquy.system());
  }

  /** The exit status for why {@code system}'s shutdown began (0 when it has not). */
  static int exitStatusOf(ActorSystem<?> system) {
    return exitStatus(CoordinatedShutdown.get(system).getShutdownReason().orElse(null));
  }

  /**
   * How long the actor system and the node's resources get to close once the shutdown reaches its last
   * phase, before the process ends regardless: Pekko allows the actor system 10 s to terminate.
   */
  private static final Duration EXIT_GRACE = Duration.ofSeconds(20);

  /** Exit status of a node the cluster downed (the minority of a partition): its supervisor starts it again. */
  static final int DOWNED_EXIT_CODE = 3;

  /**
   * Why the actor system stopped, as an exit status. A node the split brain resolver downed is no
   * longer a member; it exits with {@link #DOWNED_EXIT_CODE} so that its supervisor (Docker,
   * Kubernetes, systemd) starts it again and it joins the cluster afresh. A node that could not join,
   * or whose configuration the cluster refused, exits 1. Every other stop was asked for: 0.
   */
  static int exitStatus(CoordinatedShutdown.Reason reason) {
    if (CoordinatedShutdown.clusterDowningReason().equals(reason)) {
      System.err.println("colloquy: this node was downed by the cluster (split brain resolver); exiting to be restarted");
      return DOWNED_EXIT_CODE;
    }
    if (CoordinatedShutdown.clusterJoinUnsuccessfulReason().equals(reason)
        || CoordinatedShutdown.incompatibleConfigurationDetectedReason().equals(reason)) {
      System.err.println("colloquy: this node stopped because it could not join the cluster (" + reason + ")");
      return 1;
    }
    return 0;
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
