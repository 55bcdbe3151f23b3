package dev.colloquy.ingestion;

import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.embed.Vectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/** A fast deterministic test model: a normalized bag of hashed words. Texts sharing words are close. */
public final class HashingEmbeddingModel implements EmbeddingModel {

  private final int dimensions;
  private final AtomicInteger calls = new AtomicInteger();

  public HashingEmbeddingModel(int dimensions) {
    this.dimensions = dimensions;
  }

  @Override
  public String name() {
    return "hashing-test";
  }

  @Override
  public int dimensions() {
    return dimensions;
  }

  @Override
  public List<float[]> embed(List<String> texts) {
    calls.incrementAndGet();
    List<float[]> vectors = new ArrayList<>();
    for (String text : texts) {
      vectors.add(vector(text));
    }
    return vectors;
  }

  public int calls() {
    return calls.get();
  }

  public float[] vector(String text) {
    float[] vector = new float[dimensions];
    for (String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (word.length() > 2) {
        vector[Math.floorMod(word.hashCode(), dimensions)] += 1;
      }
    }
    return Vectors.normalized(vector);
  }
}
