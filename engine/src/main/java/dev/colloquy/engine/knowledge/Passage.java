package dev.colloquy.engine.knowledge;

/** One retrieved chunk: where it comes from, how well it matched, and its text. */
public record Passage(
    String documentId, String source, String section, int chunkIndex, double score, String text) {}
