package dev.colloquy.engine.knowledge;

import java.util.List;

/** The passages found for a query, best first, and how confident retrieval is that they answer it (0..1). */
public record RetrievalResult(List<Passage> passages, double confidence) {

  public RetrievalResult {
    passages = List.copyOf(passages);
    if (confidence < 0 || confidence > 1) {
      throw new IllegalArgumentException("confidence must be within 0..1, was " + confidence);
    }
  }

  public static RetrievalResult empty() {
    return new RetrievalResult(List.of(), 0);
  }
}
