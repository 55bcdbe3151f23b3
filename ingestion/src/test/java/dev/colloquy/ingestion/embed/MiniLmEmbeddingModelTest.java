package dev.colloquy.ingestion.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class MiniLmEmbeddingModelTest {

  @Test
  void embedsInBatchesAsUnitVectorsOf384DimensionsThatCaptureMeaning() {
    MiniLmEmbeddingModel model = new MiniLmEmbeddingModel(2);
    List<float[]> vectors = model.embed(List.of(
        "How long do I have to return a pair of shoes?",
        "Items can be returned within 30 days of delivery.",
        "Our office cafeteria serves lunch at noon."));

    assertThat(model.dimensions()).isEqualTo(384);
    assertThat(vectors).hasSize(3).allSatisfy(vector -> {
      assertThat(vector).hasSize(384);
      assertThat(norm(vector)).isCloseTo(1.0, within(1e-4));
    });
    assertThat(Vectors.cosine(vectors.get(0), vectors.get(1))).isGreaterThan(Vectors.cosine(vectors.get(0), vectors.get(2)));
  }

  private static double norm(float[] vector) {
    return Math.sqrt(dot(vector, vector));
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += a[i] * b[i];
    }
    return sum;
  }
}
