package dev.colloquy.ingestion.search;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The vectors of the last questions searched, per tenant and text: users repeat questions, and
 * embedding one costs milliseconds of CPU where a lookup costs none. A vector depends only on the
 * model and the text, so an entry never goes stale; the least recently used goes when the cache is
 * full. The tenant is part of the key so that one tenant's questions never answer another's faster.
 * A capacity of 0 caches nothing.
 */
final class QueryEmbeddingCache {

  private record Key(String tenantId, String text) {}

  private final int capacity;
  private final Map<Key, float[]> vectors;

  QueryEmbeddingCache(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("the query embedding cache's capacity must not be negative, was " + capacity);
    }
    this.capacity = capacity;
    this.vectors = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Key, float[]> eldest) {
        return size() > QueryEmbeddingCache.this.capacity;
      }
    };
  }

  /** The cached vector of the text, or the one {@code embed} returns (embedding runs outside the lock). */
  float[] vector(String tenantId, String text, Function<String, float[]> embed) {
    if (capacity == 0) {
      return embed.apply(text);
    }
    Key key = new Key(tenantId, text);
    synchronized (vectors) {
      float[] cached = vectors.get(key);
      if (cached != null) {
        return cached.clone();
      }
    }
    float[] vector = embed.apply(text);
    synchronized (vectors) {
      vectors.put(key, vector.clone());
    }
    return vector;
  }

  int size() {
    synchronized (vectors) {
      return vectors.size();
    }
  }
}
