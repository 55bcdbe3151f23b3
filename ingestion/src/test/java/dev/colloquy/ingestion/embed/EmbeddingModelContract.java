package dev.colloquy.ingestion.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.colloquy.engine.model.EmbeddingModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every {@link EmbeddingModel} must do for the stores and the retrieval that compare its
 * vectors: one unit vector per text, of the dimension it reports, the same for the same text however
 * the texts are batched. Whether the vectors capture meaning is each model's own test: a test model
 * may hash words.
 */
abstract class EmbeddingModelContract {

  /** More texts than one batch of {@link #model()}. */
  protected static final List<String> TEXTS = List.of(
      "How long do I have to return a pair of shoes?",
      "Items can be returned within 30 days of delivery.",
      "Our office cafeteria serves lunch at noon.",
      "Gift cards never expire.",
      "Parcels arrive in three to five days.");

  /** The model under test, batching at most two texts per call so that {@link #TEXTS} spans batches. */
  protected abstract EmbeddingModel model();

  @Test
  void everyVectorHasTheDimensionTheModelReports() {
    EmbeddingModel model = model();
    int dimensions = model.dimensions();

    List<float[]> vectors = model.embed(TEXTS);

    assertThat(dimensions).isPositive();
    assertThat(model.dimensions()).isEqualTo(dimensions);
    assertThat(vectors).hasSize(TEXTS.size()).allSatisfy(vector -> assertThat(vector).hasSize(dimensions));
  }

  @Test
  void vectorsAreOfUnitLength() {
    assertThat(model().embed(TEXTS)).allSatisfy(vector -> assertThat(norm(vector)).isCloseTo(1.0, within(1e-4)));
  }

  @Test
  void theSameTextGetsTheSameVector() {
    List<float[]> twice = model().embed(List.of(TEXTS.get(1), TEXTS.get(1)));
    float[] again = model().embed(List.of(TEXTS.get(1))).getFirst();

    assertThat(Vectors.cosine(twice.get(0), twice.get(1))).isCloseTo(1.0, within(1e-5));
    assertThat(Vectors.cosine(twice.get(0), again)).isCloseTo(1.0, within(1e-5));
  }

  @Test
  void aBatchGetsWhatEachTextGetsAloneInTheSameOrder() {
    List<float[]> batch = model().embed(TEXTS);

    for (int i = 0; i < TEXTS.size(); i++) {
      float[] alone = model().embed(List.of(TEXTS.get(i))).getFirst();
      assertThat(Vectors.cosine(batch.get(i), alone)).as(TEXTS.get(i)).isCloseTo(1.0, within(1e-5));
    }
  }

  @Test
  void differentTextsGetDifferentVectors() {
    List<float[]> vectors = model().embed(TEXTS);

    assertThat(Vectors.cosine(vectors.get(0), vectors.get(3))).isLessThan(0.99);
  }

  @Test
  void noTextsGiveNoVectors() {
    assertThat(model().embed(List.of())).isEmpty();
  }

  @Test
  void aBlankTextStillGetsAVector() {
    List<float[]> vectors = model().embed(List.of("", "   ", "Gift cards never expire."));

    assertThat(vectors).hasSize(3).allSatisfy(vector -> {
      assertThat(vector).hasSize(model().dimensions());
      assertThat(norm(vector)).isCloseTo(1.0, within(1e-4));
    });
  }

  protected static double norm(float[] vector) {
    double squares = 0;
    for (float value : vector) {
      squares += value * value;
    }
    return Math.sqrt(squares);
  }
}
