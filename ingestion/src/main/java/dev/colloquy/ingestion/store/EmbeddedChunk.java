package dev.colloquy.ingestion.store;

import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import java.util.EnumMap;
import java.util.Map;

/** A chunk with its three vectors, ready to store. */
public record EmbeddedChunk(KnowledgeChunk chunk, Map<VectorName, float[]> vectors) {

  public EmbeddedChunk {
    if (!vectors.keySet().containsAll(java.util.EnumSet.allOf(VectorName.class))) {
      throw new IllegalArgumentException("a chunk needs all three vectors, had " + vectors.keySet());
    }
    vectors = new EnumMap<>(vectors);
  }

  public float[] vector(VectorName name) {
    return vectors.get(name);
  }
}
