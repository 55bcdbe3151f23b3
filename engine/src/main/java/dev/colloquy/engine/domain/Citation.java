package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.knowledge.Passage;

/**
 * A passage an answer rests on, as shown to the user. {@code chunkId} names the stored chunk; it is
 * null in citations journaled before citations carried it.
 */
public record Citation(String documentId, String source, String section, int chunkIndex, double score, String chunkId)
    implements CborSerializable {

  public Citation(String documentId, String source, String section, int chunkIndex, double score) {
    this(documentId, source, section, chunkIndex, score, null);
  }

  public static Citation of(Passage passage) {
    return new Citation(passage.documentId(), passage.source(), passage.section(), passage.chunkIndex(),
        passage.score(), passage.chunkId());
  }
}
