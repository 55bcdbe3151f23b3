package dev.colloquy.engine.knowledge;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A knowledge base with no documents: every search finds nothing, with confidence 0. */
public final class EmptyKnowledgeBase implements KnowledgeBase {

  @Override
  public CompletionStage<RetrievalResult> search(String tenantId, String query, int limit) {
    return CompletableFuture.completedFuture(RetrievalResult.empty());
  }
}
