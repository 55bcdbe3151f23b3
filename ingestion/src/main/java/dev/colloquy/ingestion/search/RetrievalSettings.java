package dev.colloquy.ingestion.search;

/**
 * How hybrid retrieval runs.
 *
 * @param candidatesPerList hits taken from each search (each of the three vectors, BM25) and from the dense ranking before fusion
 * @param rrfK the k of reciprocal rank fusion: a hit at rank r of a list adds 1 / (k + r)
 * @param rerankCandidates how many fused hits go to the reranker
 * @param confidenceTopN how many top results count towards the confidence's supporting chunks
 * @param supportThreshold the relevance above which a result counts as supporting
 */
public record RetrievalSettings(
    int candidatesPerList, int rrfK, int rerankCandidates, int confidenceTopN, double supportThreshold) {

  public RetrievalSettings {
    if (candidatesPerList <= 0 || rrfK <= 0 || rerankCandidates <= 0 || confidenceTopN <= 0) {
      throw new IllegalArgumentException("retrieval settings must be positive");
    }
    if (supportThreshold < 0 || supportThreshold > 1) {
      throw new IllegalArgumentException("supportThreshold must be within 0..1, was " + supportThreshold);
    }
  }

  /** 20 candidates per list, k = 60, 20 to the reranker, confidence over the top 8 with threshold 0.4 (seed 004 §7). */
  public static RetrievalSettings defaults() {
    return new RetrievalSettings(20, 60, 20, 8, 0.4);
  }
}
