package dev.colloquy.engine.tenant;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** How many tokens a tenant lets one model call answer with: the {@code max_tokens} its turns send. */
public interface AnswerBudgets {

  CompletionStage<Integer> maxTokens(String tenantId);

  /** The same budget for every tenant. */
  static AnswerBudgets fixed(int maxTokens) {
    return tenantId -> CompletableFuture.completedFuture(maxTokens);
  }
}
