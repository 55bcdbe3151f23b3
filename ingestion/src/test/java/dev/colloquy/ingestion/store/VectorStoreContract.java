package dev.colloquy.ingestion.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link VectorStore} must do. Vectors are four-dimensional so expected rankings are
 * obvious; subclasses open their store for {@link #DIMENSIONS}.
 */
public abstract class VectorStoreContract {

  protected static final int DIMENSIONS = 4;
  private static final float[] X = {1, 0, 0, 0};
  private static final float[] Y = {0, 1, 0, 0};
  private static final float[] Z = {0, 0, 1, 0};
  private static final float[] W = {0, 0, 0, 1};
  private static final Instant INGESTED = Instant.parse("2026-11-01T10:30:00Z");

  @TempDir
  protected Path directory;

  private VectorStore store;

  /** Opens the store on {@code directory}; called again after {@link VectorStore#close()} to test reopening. */
  protected abstract VectorStore open(Path directory);

  /** Whether chunks survive closing and reopening the store. */
  protected boolean durable() {
    return true;
  }

  protected VectorStore store() {
    if (store == null) {
      store = open(directory);
    }
    return store;
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
      store = null;
    }
  }

  @Test
  void storedChunksAreHiddenUntilTheirDocumentIsPublished() {
    store().upsert("acme", List.of(embedded(chunk("acme", "doc-1", 0, "Refunds are paid within ten days.", "Refunds"), X, Y, Z)));

    assertThat(store().count("acme", "doc-1")).isEqualTo(1);
    assertThat(store().searchableCount("acme")).isZero();
    assertThat(store().searchDense("acme", VectorName.TEXT, X, 5)).isEmpty();
    assertThat(store().searchText("acme", "refunds", 5)).isEmpty();

    store().publish("acme", "doc-1", List.of());

    assertThat(store().searchableCount("acme")).isEqualTo(1);
    assertThat(store().searchableCount("globex")).isZero();
    assertThat(store().searchDense("acme", VectorName.TEXT, X, 5)).hasSize(1);
    assertThat(store().searchText("acme", "refunds", 5)).hasSize(1);

    store().unpublish("acme", "doc-1");
    assertThat(store().searchableCount("acme")).isZero();
  }

  @Test
  void denseSearchRanksByCosineSimilarityInEachVectorSpace() {
    store().upsert("acme", List.of(
        embedded(chunk("acme", "doc-1", 0, "alpha", "A"), X, Y, Z),
        embedded(chunk("acme", "doc-1", 1, "beta", "B"), Y, Z, X),
        embedded(chunk("acme", "doc-1", 2, "gamma", "C"), new float[] {1, 1, 0, 0}, W, W)));
    store().publish("acme", "doc-1", List.of());

    List<ScoredChunk> byText = store().searchDense("acme", VectorName.TEXT, X, 3);
    assertThat(byText).extracting(hit -> hit.chunk().text()).containsExactly("alpha", "gamma", "beta");
    assertThat(byText.get(0).score()).isCloseTo(1.0, within(1e-4));
    assertThat(byText.get(1).score()).isCloseTo(Math.sqrt(0.5), within(1e-4));
    assertThat(byText.get(2).score()).isCloseTo(0.0, within(1e-4));

    assertThat(store().searchDense("acme", VectorName.SUMMARY, Z, 1)).extracting(hit -> hit.chunk().text()).containsExactly("beta");
    assertThat(store().searchDense("acme", VectorName.QUESTIONS, X, 1)).extracting(hit -> hit.chunk().text()).containsExactly("beta");
    assertThat(store().searchDense("acme", VectorName.TEXT, X, 2)).hasSize(2);
  }

  @Test
  void searchingEachVectorSpaceAtOnceFindsWhatSearchingThemOneByOneFinds() {
    store().upsert("acme", List.of(
        embedded(chunk("acme", "doc-1", 0, "alpha", "A"), X, Y, Z),
        embedded(chunk("acme", "doc-1", 1, "beta", "B"), Y, Z, X),
        embedded(chunk("acme", "doc-1", 2, "gamma", "C"), new float[] {1, 1, 0, 0}, W, W)));
    store().upsert("globex", List.of(embedded(chunk("globex", "doc-9", 0, "theirs", "T"), X, X, X)));
    store().publish("acme", "doc-1", List.of());
    store().publish("globex", "doc-9", List.of());

    Map<VectorName, List<ScoredChunk>> each = store().searchDenseEach("acme", List.of(VectorName.values()), X, 2);

    assertThat(each).containsOnlyKeys(VectorName.values());
    for (VectorName vector : VectorName.values()) {
      List<ScoredChunk> alone = store().searchDense("acme", vector, X, 2);
      assertThat(each.get(vector)).extracting(hit -> hit.chunk().chunkId())
          .containsExactlyElementsOf(alone.stream().map(hit -> hit.chunk().chunkId()).toList());
      assertThat(each.get(vector)).extracting(ScoredChunk::score)
          .containsExactlyElementsOf(alone.stream().map(ScoredChunk::score).toList());
      assertThat(each.get(vector)).extracting(hit -> hit.chunk().tenantId()).containsOnly("acme");
    }
    assertThat(store().searchDenseEach("initech", List.of(VectorName.values()), X, 2).values()).allSatisfy(hits -> assertThat(hits).isEmpty());
  }

  @Test
  void textSearchIsBm25OverTextAndSectionHeading() {
    store().upsert("acme", List.of(
        embedded(chunk("acme", "doc-1", 0, "Parcels are shipped from our warehouse in Lyon.", "Shipping"), X, X, X),
        embedded(chunk("acme", "doc-1", 1, "Refunds are paid within ten days of receiving the parcel.", "Refunds"), Y, Y, Y),
        embedded(chunk("acme", "doc-1", 2, "Opening hours are nine to five.", "Contact"), Z, Z, Z)));
    store().publish("acme", "doc-1", List.of());

    assertThat(store().searchText("acme", "When is my refund paid?", 5))
        .extracting(hit -> hit.chunk().chunkIndex()).first().isEqualTo(1);
    assertThat(store().searchText("acme", "contact", 5)).extracting(hit -> hit.chunk().chunkIndex()).containsExactly(2);
    assertThat(store().searchText("acme", "parcels", 5)).hasSize(2);
    assertThat(store().searchText("acme", "the", 5)).isEmpty();
    assertThat(store().searchText("acme", "unrelated words", 5)).isEmpty();
  }

  /** A pasted page: 30 KB holding thousands of distinct words, its question first. */
  @Test
  void aQueryOfThousandsOfDistinctWordsIsServedByItsFirstOnes() {
    store().upsert("acme", List.of(
        embedded(chunk("acme", "doc-1", 0, "Refunds are paid within ten days of receiving the parcel.", "Refunds"), Y, Y, Y),
        embedded(chunk("acme", "doc-1", 1, "Opening hours are nine to five.", "Contact"), Z, Z, Z)));
    store().publish("acme", "doc-1", List.of());

    StringBuilder pasted = new StringBuilder("When is my refund paid? Here is the log:");
    for (int i = 0; pasted.length() < 30_000; i++) {
      pasted.append(" entry").append(Integer.toString(i, 36)).append("x");
    }

    assertThat(store().searchText("acme", pasted.toString(), 5))
        .extracting(hit -> hit.chunk().chunkIndex()).containsExactly(0);
  }

  @Test
  void tenantsNeverSeeEachOthersChunks() {
    store().upsert("acme", List.of(embedded(chunk("acme", "doc-1", 0, "Secret pricing of acme", "Prices"), X, X, X)));
    store().upsert("globex", List.of(embedded(chunk("globex", "doc-1", 0, "Pricing of globex", "Prices"), X, X, X)));
    store().publish("acme", "doc-1", List.of());
    store().publish("globex", "doc-1", List.of());

    assertThat(store().searchDense("globex", VectorName.TEXT, X, 10)).extracting(hit -> hit.chunk().tenantId()).containsOnly("globex");
    assertThat(store().searchText("globex", "pricing secret", 10)).extracting(hit -> hit.chunk().text()).containsExactly("Pricing of globex");
    assertThat(store().searchText("initech", "pricing", 10)).isEmpty();
    assertThat(store().searchDense("initech", VectorName.TEXT, X, 10)).isEmpty();

    store().delete("acme", "doc-1");

    assertThat(store().count("acme", "doc-1")).isZero();
    assertThat(store().count("globex", "doc-1")).isEqualTo(1);
  }

  @Test
  void publishingANewVersionRetiresTheOldOneInOneStep() {
    store().upsert("acme", List.of(embedded(chunk("acme", "v1", 0, "Returns within 30 days", "Returns"), X, X, X)));
    store().publish("acme", "v1", List.of());
    store().upsert("acme", List.of(embedded(chunk("acme", "v2", 0, "Returns within 60 days", "Returns"), X, X, X)));

    assertThat(store().searchText("acme", "returns", 5)).extracting(hit -> hit.chunk().documentId()).containsExactly("v1");

    store().publish("acme", "v2", List.of("v1"));

    assertThat(store().searchText("acme", "returns", 5)).extracting(hit -> hit.chunk().documentId()).containsExactly("v2");
    assertThat(store().searchDense("acme", VectorName.TEXT, X, 5)).extracting(hit -> hit.chunk().documentId()).containsExactly("v2");
    assertThat(store().count("acme", "v1")).isEqualTo(1);
  }

  @Test
  void unpublishHidesAtOnceAndDeleteRemoves() {
    store().upsert("acme", List.of(
        embedded(chunk("acme", "doc-1", 0, "Warranty lasts two years", "Warranty"), X, X, X),
        embedded(chunk("acme", "doc-2", 0, "Warranty claims by email", "Warranty"), Y, Y, Y)));
    store().publish("acme", "doc-1", List.of());
    store().publish("acme", "doc-2", List.of());

    store().unpublish("acme", "doc-1");

    assertThat(store().searchText("acme", "warranty", 5)).extracting(hit -> hit.chunk().documentId()).containsExactly("doc-2");
    assertThat(store().count("acme", "doc-1")).isEqualTo(1);

    store().delete("acme", "doc-1");

    assertThat(store().count("acme", "doc-1")).isZero();
    assertThat(store().count("acme", "doc-2")).isEqualTo(1);
  }

  @Test
  void everyKindOfSearchSeesEachWriteRightAfterEarlierSearches() {
    store().upsert("acme", List.of(
        embedded(chunk("acme", "doc-1", 0, "Shipping is free over fifty euros", "Shipping"), X, X, X),
        embedded(chunk("acme", "doc-2", 0, "Shipping abroad takes a week", "Shipping"), X, X, X)));
    assertSearchable();

    store().publish("acme", "doc-1", List.of());
    assertSearchable("doc-1");

    store().publish("acme", "doc-2", List.of());
    assertSearchable("doc-1", "doc-2");

    // A replaced chunk counts once and is found only in its new form.
    store().upsert("acme", List.of(embedded(chunk("acme", "doc-1", 0, "Shipping is free over forty euros", "Shipping"), X, X, X)));
    assertSearchable("doc-1", "doc-2");
    assertThat(store().searchText("acme", "shipping free", 5)).extracting(hit -> hit.chunk().text())
        .contains("Shipping is free over forty euros").doesNotContain("Shipping is free over fifty euros");

    store().unpublish("acme", "doc-1");
    assertSearchable("doc-2");

    store().delete("acme", "doc-2");
    assertSearchable();
  }

  /** Text, dense, all-spaces, count and cited-passage lookups all agree on which documents are searchable. */
  private void assertSearchable(String... documentIds) {
    assertThat(store().searchableCount("acme")).isEqualTo(documentIds.length);
    assertThat(store().searchText("acme", "shipping", 5)).extracting(hit -> hit.chunk().documentId())
        .containsExactlyInAnyOrder(documentIds);
    assertThat(store().searchDense("acme", VectorName.TEXT, X, 5)).extracting(hit -> hit.chunk().documentId())
        .containsExactlyInAnyOrder(documentIds);
    Map<VectorName, List<ScoredChunk>> each = store().searchDenseEach("acme", List.of(VectorName.values()), X, 5);
    for (VectorName vector : VectorName.values()) {
      assertThat(each.get(vector)).as(vector.wireName()).extracting(hit -> hit.chunk().documentId())
          .containsExactlyInAnyOrder(documentIds);
    }
    for (String documentId : List.of("doc-1", "doc-2")) {
      assertThat(store().searchableChunk("acme", documentId, 0).isPresent()).as(documentId)
          .isEqualTo(List.of(documentIds).contains(documentId));
    }
  }

  @Test
  void aCitedPassageIsFoundByItsDocumentAndPositionOnlyWhileSearchable() {
    List<EmbeddedChunk> manyChunks = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      manyChunks.add(embedded(chunk("acme", "doc-1", i, "Passage number " + i + " of the handbook", "Part " + i / 100), X, Y, Z));
    }
    store().upsert("acme", manyChunks);
    store().upsert("acme", List.of(embedded(chunk("acme", "draft", 0, "An unpublished draft", "Drafts"), X, Y, Z)));
    store().upsert("globex", List.of(embedded(chunk("globex", "doc-1", 7, "Globex's own passage", "Globex"), X, Y, Z)));
    store().publish("acme", "doc-1", List.of());
    store().publish("globex", "doc-1", List.of());

    assertThat(store().searchableChunk("acme", "doc-1", 7)).hasValue(manyChunks.get(7).chunk().withLatestVersion(true));
    assertThat(store().searchableChunk("acme", "doc-1", 299).map(KnowledgeChunk::text)).hasValue("Passage number 299 of the handbook");
    assertThat(store().searchableChunk("acme", "doc-1", 300)).isEmpty();
    assertThat(store().searchableChunk("acme", "doc-1", -1)).isEmpty();
    assertThat(store().searchableChunk("acme", "draft", 0)).as("an unpublished document's").isEmpty();
    assertThat(store().searchableChunk("acme", "doc-2", 0)).isEmpty();
    assertThat(store().searchableChunk("globex", "doc-1", 7).map(KnowledgeChunk::text)).hasValue("Globex's own passage");
    assertThat(store().searchableChunk("globex", "doc-1", 8)).as("not acme's chunk of the same document id").isEmpty();
    assertThat(store().searchableChunk("initech", "doc-1", 7)).isEmpty();

    store().unpublish("acme", "doc-1");

    assertThat(store().searchableChunk("acme", "doc-1", 7)).as("a deleted document's").isEmpty();
  }

  @Test
  void theWholePayloadRoundTrips() {
    KnowledgeChunk chunk = chunk("acme", "doc-1", 7, "| Plan | Price |\n|---|---|\n| Basic | 5 |", "Plans");
    store().upsert("acme", List.of(embedded(chunk, X, Y, Z)));
    store().publish("acme", "doc-1", List.of());

    KnowledgeChunk found = store().searchDense("acme", VectorName.TEXT, X, 1).getFirst().chunk();

    assertThat(found).isEqualTo(chunk.withLatestVersion(true));
  }

  @Test
  void upsertingAChunkAgainReplacesItAndKeepsItSearchable() {
    KnowledgeChunk chunk = chunk("acme", "doc-1", 0, "Gift cards never expire", "Gift cards");
    store().upsert("acme", List.of(embedded(chunk, X, Y, Z)));
    store().publish("acme", "doc-1", List.of());

    KnowledgeChunk enriched = chunk.withEnrichment(new dev.colloquy.ingestion.chunk.Enrichment(
        "Gift cards are valid forever.", List.of("Do gift cards expire?", "How long is a gift card valid?", "Can I use an old gift card?"), "test-model"));
    store().upsert("acme", List.of(embedded(enriched, X, W, W)));

    assertThat(store().count("acme", "doc-1")).isEqualTo(1);
    List<ScoredChunk> hits = store().searchDense("acme", VectorName.SUMMARY, W, 5);
    assertThat(hits).hasSize(1);
    assertThat(hits.getFirst().chunk().summary()).isEqualTo("Gift cards are valid forever.");
    assertThat(hits.getFirst().chunk().enrichmentGenerator()).isEqualTo("test-model");
  }

  @Test
  void chunksSurviveReopeningTheStore() {
    org.junit.jupiter.api.Assumptions.assumeTrue(durable(), "this store keeps nothing across a reopen");
    store().upsert("acme", List.of(embedded(chunk("acme", "doc-1", 0, "Loyalty points expire after a year", "Loyalty"), X, Y, Z)));
    store().publish("acme", "doc-1", List.of());
    store().close();

    store = open(directory);

    assertThat(store().searchText("acme", "loyalty points", 5)).hasSize(1);
    assertThat(store().searchDense("acme", VectorName.QUESTIONS, Z, 5)).hasSize(1);
  }

  protected static KnowledgeChunk chunk(String tenant, String documentId, int index, String text, String section) {
    return new KnowledgeChunk(
        tenant + "-" + documentId + "-" + index, documentId, tenant, "policy.pdf", 3, false, section, "paragraph", index,
        text, text.length(), text.split("\\s+").length, "Summary of " + section,
        List.of("What about " + section + "?", "Why " + section + "?", "How " + section + "?"), "offline-extractive-v1",
        INGESTED.truncatedTo(ChronoUnit.SECONDS));
  }

  protected static EmbeddedChunk embedded(KnowledgeChunk chunk, float[] text, float[] summary, float[] questions) {
    Map<VectorName, float[]> vectors = new EnumMap<>(VectorName.class);
    vectors.put(VectorName.TEXT, text);
    vectors.put(VectorName.SUMMARY, summary);
    vectors.put(VectorName.QUESTIONS, questions);
    return new EmbeddedChunk(chunk, vectors);
  }
}
