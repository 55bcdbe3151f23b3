package dev.colloquy.engine.knowledge;

/**
 * One retrieved chunk: where it comes from, how well it matched, and its text; {@code chunkId} is the
 * stored chunk's own id, when the knowledge base has one.
 */
public record Passage(
    String documentId, String source, String section, int chunkIndex, double score, String text, String chunkId) {

  public Passage(String documentId, String source, String section, int chunkIndex, double score, String text) {
    this(documentId, source, section, chunkIndex, score, text, null);
  }
}
