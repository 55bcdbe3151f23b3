package dev.colloquy.engine.tenant;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Which models a turn runs when it names none: its tenant's {@code default_model} for a turn, its
 * {@code fan_out_models} for a fan-out (see {@link ConfiguredModelChoice}). A turn that names models
 * runs those.
 */
public interface ModelChoice {

  CompletionStage<List<String>> forTurn(String tenantId, List<String> requested);

  CompletionStage<List<String>> forFanOut(String tenantId, List<String> requested);

  /** No tenant chooses: a turn runs what it names, else the engine's default model. */
  static ModelChoice asRequested() {
    return new ModelChoice() {
      @Override
      public CompletionStage<List<String>> forTurn(String tenantId, List<String> requested) {
        return CompletableFuture.completedFuture(requested);
      }

      @Override
      public CompletionStage<List<String>> forFanOut(String tenantId, List<String> requested) {
        return CompletableFuture.completedFuture(requested);
      }
    };
  }
}
