package dev.colloquy.ingestion.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Reranker} must do for hybrid retrieval: one relevance between 0 and 1 per
 * document, bound to its document rather than to a position, and the best answer scored highest.
 * How a reranker fails (it answers no scores) depends on what can fail, so each one tests that itself.
 */
public abstract class RerankerContract {

  protected static final String QUERY = "Do gift cards expire?";
  protected static final List<String> DOCUMENTS = List.of(
      "Parcels arrive in three to five days.",
      "Gift cards never expire.",
      "Do gift cards expire? They never expire and cannot be exchanged.");

  /** The reranker under test, able to score at least {@link #DOCUMENTS}. */
  protected abstract Reranker reranker();

  @Test
  void everyDocumentGetsOneRelevanceBetweenZeroAndOne() {
    List<Double> scores = reranker().rerank(QUERY, DOCUMENTS).orElseThrow();

    assertThat(scores).hasSize(DOCUMENTS.size()).allSatisfy(score -> assertThat(score).isBetween(0.0, 1.0));
  }

  @Test
  void theBestAnswerScoresHighestAndTheUnrelatedOneLowest() {
    List<Double> scores = reranker().rerank(QUERY, DOCUMENTS).orElseThrow();

    assertThat(scores.get(2)).isGreaterThan(scores.get(1));
    assertThat(scores.get(1)).isGreaterThan(scores.get(0));
  }

  @Test
  void eachRelevanceStaysWithItsDocumentWhateverTheOrderGiven() {
    List<Double> scores = reranker().rerank(QUERY, DOCUMENTS).orElseThrow();

    List<Double> reversed = reranker().rerank(QUERY, DOCUMENTS.reversed()).orElseThrow();

    assertThat(reversed).containsExactlyElementsOf(scores.reversed());
  }

  @Test
  void noDocumentsGetNoScores() {
    assertThat(reranker().rerank(QUERY, List.of())).contains(List.of());
  }
}
