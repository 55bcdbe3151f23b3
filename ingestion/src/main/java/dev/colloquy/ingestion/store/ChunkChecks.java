package dev.colloquy.ingestion.store;

import dev.colloquy.ingestion.chunk.KnowledgeChunk;

/** The argument checks every vector store makes before it writes or searches. */
public final class ChunkChecks {

  private ChunkChecks() {}

  public static void requireDimensions(float[] vector, int dimensions) {
    if (vector.length != dimensions) {
      throw new IllegalArgumentException("expected a vector of " + dimensions + " dimensions, got " + vector.length);
    }
  }

  public static void requireTenant(String tenantId, KnowledgeChunk chunk) {
    if (!tenantId.equals(chunk.tenantId())) {
      throw new IllegalArgumentException("chunk " + chunk.chunkId() + " belongs to another tenant");
    }
  }
}
