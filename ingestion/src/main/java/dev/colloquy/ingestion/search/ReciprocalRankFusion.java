package dev.colloquy.ingestion.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reciprocal rank fusion: an item at rank r (from 1) of a list scores 1 / (k + r); its fused score
 * is the sum over the lists it appears in. Ties keep the order in which items were first seen.
 */
final class ReciprocalRankFusion {

  private ReciprocalRankFusion() {}

  record Fused(String id, double score) {}

  static List<Fused> fuse(List<List<String>> rankings, int k) {
    Map<String, Double> scores = new LinkedHashMap<>();
    for (List<String> ranking : rankings) {
      for (int rank = 0; rank < ranking.size(); rank++) {
        scores.merge(ranking.get(rank), 1.0 / (k + rank + 1), Double::sum);
      }
    }
    List<Fused> fused = new ArrayList<>();
    scores.forEach((id, score) -> fused.add(new Fused(id, score)));
    fused.sort(Comparator.comparingDouble(Fused::score).reversed());
    return fused;
  }
}
