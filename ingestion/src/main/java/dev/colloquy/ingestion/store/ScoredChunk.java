package dev.colloquy.ingestion.store;

import dev.colloquy.ingestion.chunk.KnowledgeChunk;

/**
 * A search hit. For dense search the score is the cosine similarity between the query and the
 * chunk's vector (-1..1); for BM25 it is the BM25 score (unbounded, comparable only within one
 * result list).
 */
public record ScoredChunk(KnowledgeChunk chunk, double score) {}
