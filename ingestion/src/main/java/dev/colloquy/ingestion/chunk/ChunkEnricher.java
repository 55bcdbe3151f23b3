package dev.colloquy.ingestion.chunk;

/**
 * Writes a chunk's summary and three hypothetical questions (seed 004 §6.3). Blocking. A chat-model
 * implementation asks the model with the seed's prompt; {@link OfflineEnricher} needs no model.
 */
public interface ChunkEnricher {

  Enrichment enrich(String sectionHeading, String text);
}
