package dev.colloquy.ingestion.search;

import java.util.List;
import java.util.Optional;

/**
 * Scores how well each document answers a query, as a relevance between 0 and 1 (a Cohere-style
 * rerank). Blocking.
 */
public interface Reranker {

  /**
   * One relevance per document, in the order the documents were given; empty when the reranker
   * could not score them (it logs why), and retrieval then goes on without it.
   */
  Optional<List<Double>> rerank(String query, List<String> documents);
}
