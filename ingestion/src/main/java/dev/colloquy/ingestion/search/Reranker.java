package dev.colloquy.ingestion.search;

import java.util.List;

/**
 * Scores how well each document answers a query, as a relevance between 0 and 1 (a Cohere-style
 * rerank). Blocking.
 */
public interface Reranker {

  /** One relevance per document, in the order the documents were given. */
  List<Double> rerank(String query, List<String> documents);
}
