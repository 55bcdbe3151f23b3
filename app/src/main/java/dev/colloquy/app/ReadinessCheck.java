package dev.colloquy.app;

import dev.colloquy.engine.session.ChatSession;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.sharding.ClusterSharding;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.pattern.Patterns;

/**
 * The readiness check of the management endpoint's {@code /ready} (beside Pekko's own check that the
 * node is an Up member): sessions can be placed here, since the shard coordinator answers and counts
 * this node's region among those it allocates shards to; the journal answers; the node is not
 * shutting down. Built by Pekko Management from the actor system.
 */
public final class ReadinessCheck implements Supplier<CompletionStage<Boolean>> {

  private static final Duration ASK_TIMEOUT = Duration.ofMillis(800);

  private final ActorSystem system;

  public ReadinessCheck(ActorSystem system) {
    this.system = system;
  }

  @Override
  public CompletionStage<Boolean> get() {
    return NodeReadiness.get(Adapter.toTyped(system)).ready()
        .thenCompose(ready -> ready ? shardsAllocatable() : CompletableFuture.completedFuture(false));
  }

  /** A region answers with no regions at all while it has no coordinator. */
  private CompletionStage<Boolean> shardsAllocatable() {
    if (!ClusterSharding.get(system).getShardTypeNames().contains(ChatSession.ENTITY_KEY.name())) {
      return CompletableFuture.completedFuture(false);
    }
    return Patterns.ask(ClusterSharding.get(system).shardRegion(ChatSession.ENTITY_KEY.name()),
            ShardRegion.getCurrentRegionsInstance(), ASK_TIMEOUT)
        .thenApply(reply -> reply instanceof ShardRegion.CurrentRegions regions
            && regions.getRegions().contains(Cluster.get(system).selfAddress()))
        .exceptionally(timeout -> false);
  }
}
