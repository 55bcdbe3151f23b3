package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.knowledge.RetrievalResult;
import java.util.List;

/**
 * Flags what the knowledge base lacks for a turn. The threshold is seed 004 §7.3's escalation
 * threshold: below it, retrieval does not support an answer.
 */
final class GapDetection {

  static final double LOW_CONFIDENCE = 0.55;

  private GapDetection() {}

  static List<Gap> detect(RetrievalResult result) {
    if (result.passages().isEmpty()) {
      return List.of(
          new Gap("knowledge", "No document in the knowledge base matches this message; add one that covers it."));
    }
    if (result.confidence() < LOW_CONFIDENCE) {
      return List.of(
          new Gap(
              "knowledge",
              "The closest passages match weakly (confidence "
                  + String.format(java.util.Locale.ROOT, "%.2f", result.confidence())
                  + "); a document that covers this message would ground the answer."));
    }
    return List.of();
  }
}
