package dev.colloquy.engine.agent;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A memory store for entity tests, held in memory: it recalls every memory of the user (no
 * embeddings) and dedupes by exact text. The JDBC store, with embeddings, is tested on PostgreSQL.
 */
public final class RecordingMemoryStore implements MemoryStore {

  private final Map<String, List<Memory>> byUser = new ConcurrentHashMap<>();
  private final Map<String, UserContext> contexts = new ConcurrentHashMap<>();

  private List<Memory> of(String tenantId, String userId) {
    return byUser.computeIfAbsent(tenantId + "/" + userId, key -> new CopyOnWriteArrayList<>());
  }

  @Override
  public List<Memory> recall(String tenantId, String userId, String query, int limit) {
    List<Memory> memories = of(tenantId, userId);
    return List.copyOf(memories.subList(0, Math.min(limit, memories.size())));
  }

  @Override
  public List<Memory> remember(String tenantId, String userId, List<String> facts, String source, String sessionId) {
    List<Memory> stored = new ArrayList<>();
    for (String fact : facts) {
      if (of(tenantId, userId).stream().noneMatch(memory -> memory.content().equals(fact))) {
        Memory memory = new Memory(UUID.randomUUID().toString(), fact, source, Instant.now());
        of(tenantId, userId).add(memory);
        stored.add(memory);
      }
    }
    return stored;
  }

  @Override
  public List<Memory> list(String tenantId, String userId) {
    return List.copyOf(of(tenantId, userId));
  }

  @Override
  public boolean forget(String tenantId, String userId, String memoryId) {
    return of(tenantId, userId).removeIf(memory -> memory.memoryId().equals(memoryId));
  }

  @Override
  public int forgetAll(String tenantId, String userId) {
    int count = of(tenantId, userId).size();
    of(tenantId, userId).clear();
    contexts.remove(tenantId + "/" + userId);
    return count;
  }

  @Override
  public Optional<UserContext> context(String tenantId, String userId) {
    return Optional.ofNullable(contexts.get(tenantId + "/" + userId));
  }

  @Override
  public void setContext(String tenantId, String userId, UserContext context) {
    contexts.put(tenantId + "/" + userId, context);
  }
}
