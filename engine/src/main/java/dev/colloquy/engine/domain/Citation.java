package dev.colloquy.engine.domain;

import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.knowledge.Passage;

/** A passage an answer rests on, as shown to the user. */
public record Citation(String documentId, String source, String section, int chunkIndex, double score)
    implements CborSerializable {

  public static Citation of(Passage passage) {
    return new Citation(
        passage.documentId(), passage.source(), passage.section(), passage.chunkIndex(), passage.score());
  }
}
