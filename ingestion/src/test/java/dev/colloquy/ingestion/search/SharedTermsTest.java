package dev.colloquy.ingestion.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.store.ScoredChunk;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharedTermsTest {

  private final SharedTerms sharedTerms = new SharedTerms();

  @Test
  void aLongQueryKeepsOnlyHitsSharingTwoOfItsTerms() {
    ScoredChunk oneTerm = hit("Cleaning", "Wipe the machine with a damp cloth after use.");
    ScoredChunk twoTerms = hit("Specifications", "The machine draws 1450 watts at full power.");

    List<ScoredChunk> kept = sharedTerms.withEvidence("How many watts does the machine draw?", List.of(oneTerm, twoTerms));

    assertThat(kept).containsExactly(twoTerms);
  }

  @Test
  void aTermRepeatedInTheChunkCountsOnce() {
    ScoredChunk repeated = hit("Machine", "The machine, the machine, and again the machine.");

    assertThat(sharedTerms.withEvidence("How many watts does the machine draw?", List.of(repeated))).isEmpty();
  }

  @Test
  void termsMatchAfterStemmingAndTheSectionHeadingCounts() {
    ScoredChunk headingAndText = hit("Descaling", "Use citric acid, never vinegar, every two months.");

    assertThat(sharedTerms.withEvidence("Can I descale the machine with vinegar?", List.of(headingAndText)))
        .containsExactly(headingAndText);
  }

  @Test
  void queriesOfOneOrTwoTermsKeepEveryHit() {
    ScoredChunk a = hit("Returns", "Refunds within 30 days.");
    ScoredChunk b = hit("Shipping", "Parcels leave within two days.");

    assertThat(sharedTerms.withEvidence("refund policy", List.of(a, b))).containsExactly(a, b);
    assertThat(SharedTerms.required(1)).isEqualTo(1);
    assertThat(SharedTerms.required(2)).isEqualTo(1);
    assertThat(SharedTerms.required(3)).isEqualTo(2);
  }

  @Test
  void stopWordsAreNotTermsSoTheyNeitherCountNorLengthenTheQuery() {
    ScoredChunk hit = hit("Vouchers", "Gift cards never expire.");

    // "what", "is", "the", "of", "a" are stop words: two terms remain, so every hit is kept.
    assertThat(sharedTerms.withEvidence("What is the expiry of a gift?", List.of(hit))).containsExactly(hit);
  }

  private static ScoredChunk hit(String section, String text) {
    KnowledgeChunk chunk = new KnowledgeChunk("c-" + section, "d", "t", "f.md", 1, true, section, "paragraph", 0, text,
        text.length(), 10, "", List.of(), "offline", Instant.EPOCH);
    return new ScoredChunk(chunk, 1.0);
  }
}
