package dev.colloquy.mockllm;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Deterministic, L2-normalised vectors: every word maps to a fixed pseudo-random direction and a
 * text's vector is the normalised sum of its words' directions. The same text always gets the same
 * vector, on any JVM, and texts sharing words have a high cosine similarity, which gives retrieval
 * tests meaningful neighbours without a real model.
 */
final class BagOfWordsEmbedding {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private BagOfWordsEmbedding() {}

  static float[] embed(String text, int dimensions) {
    List<String> words = Words.of(text);
    // A text without words still needs a stable direction of its own.
    List<String> features = words.isEmpty() ? List.of(text) : words;
    double[] sum = new double[dimensions];
    for (String feature : features) {
      addDirection(sum, fnv1a(feature));
    }
    return normalised(sum);
  }

  private static void addDirection(double[] sum, long seed) {
    long state = seed;
    for (int i = 0; i < sum.length; i++) {
      state += 0x9e3779b97f4a7c15L;
      sum[i] += (splitMix(state) >>> 11) * 0x1.0p-53 * 2.0 - 1.0;
    }
  }

  private static float[] normalised(double[] vector) {
    double squares = 0;
    for (double value : vector) {
      squares += value * value;
    }
    double norm = Math.sqrt(squares);
    float[] unit = new float[vector.length];
    for (int i = 0; i < vector.length; i++) {
      unit[i] = (float) (vector[i] / norm);
    }
    return unit;
  }

  private static long fnv1a(String text) {
    long hash = FNV_OFFSET;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      hash = (hash ^ (b & 0xff)) * FNV_PRIME;
    }
    return hash;
  }

  private static long splitMix(long state) {
    long z = state;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
