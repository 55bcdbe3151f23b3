package dev.colloquy.ingestion.embed;

/** One MiniLM instance for all tests of a run: loading the ONNX model is the slow part. */
public final class SharedMiniLm {

  private static MiniLmEmbeddingModel model;

  private SharedMiniLm() {}

  public static synchronized MiniLmEmbeddingModel model() {
    if (model == null) {
      model = new MiniLmEmbeddingModel();
    }
    return model;
  }
}
