package dev.colloquy.app;

import dev.colloquy.engine.session.ChatSession;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingQuery;
import org.apache.pekko.cluster.sharding.typed.GetShardRegionState;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * The session entities in memory on this node, as cluster sharding's own region state reports them:
 * a passivated session is absent from it, one that is running or idle in memory is present.
 */
public final class LiveSessions {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private LiveSessions() {}

  public static Set<String> ids(ActorSystem<?> system) {
    ShardRegion.CurrentShardRegionState state = AskPattern.<ClusterShardingQuery, ShardRegion.CurrentShardRegionState>ask(
            ClusterSharding.get(system).shardState(),
            replyTo -> new GetShardRegionState(ChatSession.ENTITY_KEY, replyTo),
            TIMEOUT, system.scheduler())
        .toCompletableFuture().join();
    Set<String> ids = new HashSet<>();
    state.getShards().forEach(shard -> ids.addAll(shard.getEntityIds()));
    return ids;
  }

  public static boolean contains(ActorSystem<?> system, String sessionId) {
    return ids(system).contains(sessionId);
  }
}
