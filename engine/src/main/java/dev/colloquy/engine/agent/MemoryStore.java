package dev.colloquy.engine.agent;

import java.util.List;
import java.util.Optional;

/**
 * The long-term memory of a tenant's users: facts with their embeddings, and each user's context.
 * Every call names the tenant and the user; nothing crosses from one to another. Blocking: call it
 * off the actors' dispatcher.
 */
public interface MemoryStore {

  /** The user's memories most similar to {@code query}, best first, at most {@code limit}. */
  List<Memory> recall(String tenantId, String userId, String query, int limit);

  /**
   * Keeps the facts the user does not have yet (the same words, or nearly the same meaning, are not
   * stored twice); returns those it stored.
   */
  List<Memory> remember(String tenantId, String userId, List<String> facts, String source, String sessionId);

  /** All the user's memories, newest first. */
  List<Memory> list(String tenantId, String userId);

  /** False when the user has no such memory. */
  boolean forget(String tenantId, String userId, String memoryId);

  /** Forgets everything about the user (memories and context); returns how many memories went. */
  int forgetAll(String tenantId, String userId);

  Optional<UserContext> context(String tenantId, String userId);

  void setContext(String tenantId, String userId, UserContext context);

  /** A store that keeps nothing: a node without memory. */
  static MemoryStore none() {
    return new MemoryStore() {
      @Override
      public List<Memory> recall(String tenantId, String userId, String query, int limit) {
        return List.of();
      }

      @Override
      public List<Memory> remember(String tenantId, String userId, List<String> facts, String source,
          String sessionId) {
        return List.of();
      }

      @Override
      public List<Memory> list(String tenantId, String userId) {
        return List.of();
      }

      @Override
      public boolean forget(String tenantId, String userId, String memoryId) {
        return false;
      }

      @Override
      public int forgetAll(String tenantId, String userId) {
        return 0;
      }

      @Override
      public Optional<UserContext> context(String tenantId, String userId) {
        return Optional.empty();
      }

      @Override
      public void setContext(String tenantId, String userId, UserContext context) {}
    };
  }
}
