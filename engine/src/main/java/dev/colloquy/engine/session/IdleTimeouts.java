package dev.colloquy.engine.session;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Each tenant's idle timeout: how long one of its sessions may go without a turn before it is closed. */
public interface IdleTimeouts {

  CompletionStage<Duration> idleTimeout(String tenantId);

  /** The shortest timeout any tenant can have: sessions idle for less are never candidates. */
  Duration shortest();

  /** The same timeout for every tenant. */
  static IdleTimeouts fixed(Duration timeout) {
    return new IdleTimeouts() {
      @Override
      public CompletionStage<Duration> idleTimeout(String tenantId) {
        return CompletableFuture.completedFuture(timeout);
      }

      @Override
      public Duration shortest() {
        return timeout;
      }
    };
  }
}
