package dev.colloquy.ingestion.embed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.model.EmbeddingModel;
import java.util.List;
import org.junit.jupiter.api.Test;

class MiniLmEmbeddingModelTest extends EmbeddingModelContract {

  private static final MiniLmEmbeddingModel MODEL = new MiniLmEmbeddingModel(2);

  @Override
  protected EmbeddingModel model() {
    return MODEL;
  }

  @Test
  void itIsAll_MiniLM_L6_v2WithIts384Dimensions() {
    assertThat(MODEL.name()).isEqualTo("all-minilm-l6-v2");
    assertThat(MODEL.dimensions()).isEqualTo(384);
  }

  @Test
  void aQuestionIsCloserToItsAnswerThanToAnUnrelatedText() {
    List<float[]> vectors = MODEL.embed(List.of(
        "How long do I have to return a pair of shoes?",
        "Items can be returned within 30 days of delivery.",
        "Our office cafeteria serves lunch at noon."));

    assertThat(Vectors.cosine(vectors.get(0), vectors.get(1))).isGreaterThan(Vectors.cosine(vectors.get(0), vectors.get(2)));
  }
}
