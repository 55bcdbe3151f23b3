package dev.colloquy.engine.knowledge;

import java.util.concurrent.CompletionStage;

/**
 * The engine's port to a tenant's documents. Implementations must apply the tenant filter on every
 * query: a tenant never sees another tenant's passages.
 */
public interface KnowledgeBase {

  CompletionStage<RetrievalResult> search(String tenantId, String query, int limit);
}
