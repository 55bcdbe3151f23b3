package dev.colloquy.app;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * What this node knows of its own readiness beyond the cluster: its HTTP API listens (not ready until
 * it is registered), the journal answers and the node is not shutting down. Pekko Management builds its health checks by reflection from the actor system
 * alone, so {@link Colloquy#start} hands them these through this extension.
 */
final class NodeReadiness implements Extension {

  static final ExtensionId<NodeReadiness> ID = new ExtensionId<>() {
    @Override
    public NodeReadiness createExtension(ActorSystem<?> system) {
      return new NodeReadiness();
    }
  };

  private volatile Supplier<CompletionStage<Boolean>> journalReachable = () -> CompletableFuture.completedFuture(false);
  private volatile BooleanSupplier acceptingTurns = () -> false;

  static NodeReadiness get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  void register(Supplier<CompletionStage<Boolean>> journalReachable, BooleanSupplier acceptingTurns) {
    this.journalReachable = journalReachable;
    this.acceptingTurns = acceptingTurns;
  }

  CompletionStage<Boolean> ready() {
    if (!acceptingTurns.getAsBoolean()) {
      return CompletableFuture.completedFuture(false);
    }
    return journalReachable.get();
  }
}
