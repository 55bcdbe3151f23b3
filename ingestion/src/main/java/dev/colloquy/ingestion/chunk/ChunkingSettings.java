package dev.colloquy.ingestion.chunk;

/**
 * How documents are cut into chunks (tokens are cl100k_base).
 *
 * @param minTokens a chunk this full is closed rather than splitting the next paragraph into it
 * @param maxTokens no chunk is larger, except one holding a single oversized table, list or code block
 * @param overlapTokens how much of a chunk's closing prose the next chunk of the same section repeats
 * @param maxBlockTokens a table, list or code block larger than this is cut at row, item or line
 *     boundaries (a table repeats its header); up to this size it stays whole in a chunk of its own
 */
public record ChunkingSettings(int minTokens, int maxTokens, int overlapTokens, int maxBlockTokens) {

  public ChunkingSettings {
    if (minTokens <= 0 || minTokens > maxTokens) {
      throw new IllegalArgumentException("minTokens must be within 1..maxTokens, was " + minTokens);
    }
    if (overlapTokens < 0 || overlapTokens >= maxTokens / 2) {
      throw new IllegalArgumentException("overlapTokens must be within 0..maxTokens/2, was " + overlapTokens);
    }
    if (maxBlockTokens < maxTokens) {
      throw new IllegalArgumentException("maxBlockTokens must be at least maxTokens, was " + maxBlockTokens);
    }
  }

  /** 400–500 tokens per chunk, 50 tokens of overlap, blocks whole up to 2,000 tokens. */
  public static ChunkingSettings defaults() {
    return new ChunkingSettings(400, 500, 50, 2_000);
  }
}
