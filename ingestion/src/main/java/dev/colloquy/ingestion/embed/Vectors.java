package dev.colloquy.ingestion.embed;

/** Small vector arithmetic shared by the embedding models and stores. */
public final class Vectors {

  private Vectors() {}

  /** A unit-length copy of {@code vector}; a zero vector stays zero. */
  public static float[] normalized(float[] vector) {
    double norm = 0;
    for (float v : vector) {
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    float[] unit = new float[vector.length];
    if (norm == 0) {
      return unit;
    }
    for (int i = 0; i < vector.length; i++) {
      unit[i] = (float) (vector[i] / norm);
    }
    return unit;
  }

  public static double cosine(float[] a, float[] b) {
    double dot = 0;
    double normA = 0;
    double normB = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      normA += a[i] * a[i];
      normB += b[i] * b[i];
    }
    return normA == 0 || normB == 0 ? 0 : dot / Math.sqrt(normA * normB);
  }
}
