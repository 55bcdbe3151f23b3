package dev.colloquy.ingestion.search;

import java.util.List;

/**
 * Retrieval confidence, seed 004 §7.2: {@code min(1, top * 0.85 + (supporting / 10) * 0.15)} where
 * {@code top} is the relevance of the first result and {@code supporting} the number of results
 * among the top N whose relevance exceeds the threshold. No results: 0.
 */
final class Confidence {

  private Confidence() {}

  static double of(List<Double> relevances, int topN, double threshold) {
    if (relevances.isEmpty()) {
      return 0.0;
    }
    double top = clamp(relevances.getFirst());
    long supporting = relevances.stream().limit(topN).filter(relevance -> relevance > threshold).count();
    return clamp(Math.min(1.0, top * 0.85 + (supporting / 10.0) * 0.15));
  }

  static double clamp(double value) {
    return Math.max(0.0, Math.min(1.0, value));
  }
}
