package dev.colloquy.ingestion.embed;

import dev.colloquy.engine.model.EmbeddingModel;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.util.ArrayList;
import java.util.List;

/**
 * all-MiniLM-L6-v2 running in-process on ONNX Runtime (the model ships inside the langchain4j jar):
 * 384 dimensions, unit-length vectors. Texts are embedded in batches on the calling thread, so run
 * it on a blocking executor. The model (ONNX Runtime and about 90 MB of weights) is loaded on the first
 * embedding, not when the node starts: a node whose tenants have no documents never loads it.
 */
public final class MiniLmEmbeddingModel implements EmbeddingModel {

  public static final String NAME = "all-minilm-l6-v2";
  public static final int DIMENSIONS = 384;

  /** What a blank text is embedded as: langchain4j refuses a blank segment, and every blank text gets one vector. */
  private static final String BLANK = ".";

  private final int batchSize;
  private volatile AllMiniLmL6V2EmbeddingModel model;

  public MiniLmEmbeddingModel() {
    this(32);
  }

  public MiniLmEmbeddingModel(int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize must be positive, was " + batchSize);
    }
    this.batchSize = batchSize;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int dimensions() {
    return DIMENSIONS;
  }

  @Override
  public List<float[]> embed(List<String> texts) {
    List<float[]> vectors = new ArrayList<>(texts.size());
    for (int start = 0; start < texts.size(); start += batchSize) {
      List<TextSegment> batch = texts.subList(start, Math.min(texts.size(), start + batchSize)).stream()
          .map(text -> TextSegment.from(text.isBlank() ? BLANK : text))
          .toList();
      for (Embedding embedding : model().embedAll(batch).content()) {
        vectors.add(Vectors.normalized(embedding.vector()));
      }
    }
    return vectors;
  }

  private AllMiniLmL6V2EmbeddingModel model() {
    AllMiniLmL6V2EmbeddingModel loaded = model;
    if (loaded == null) {
      synchronized (this) {
        loaded = model;
        if (loaded == null) {
          loaded = new AllMiniLmL6V2EmbeddingModel(Runnable::run);
          model = loaded;
        }
      }
    }
    return loaded;
  }
}
