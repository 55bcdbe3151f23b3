package dev.colloquy.ingestion.embed;

import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import dev.colloquy.ingestion.store.VectorName;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Embeds the three variants of each chunk (seed 004 §6.4): its text, its summary and its questions. */
public final class ChunkVectors {

  private final EmbeddingModel model;

  public ChunkVectors(EmbeddingModel model) {
    this.model = model;
  }

  public List<EmbeddedChunk> embed(List<KnowledgeChunk> chunks) {
    List<String> texts = new ArrayList<>(chunks.size() * 3);
    for (KnowledgeChunk chunk : chunks) {
      texts.add(chunk.textForEmbedding());
      texts.add(chunk.summary());
      texts.add(chunk.questionsForEmbedding());
    }
    List<float[]> vectors = embedChecked(texts);
    List<EmbeddedChunk> embedded = new ArrayList<>(chunks.size());
    for (int i = 0; i < chunks.size(); i++) {
      Map<VectorName, float[]> byName = new EnumMap<>(VectorName.class);
      byName.put(VectorName.TEXT, vectors.get(3 * i));
      byName.put(VectorName.SUMMARY, vectors.get(3 * i + 1));
      byName.put(VectorName.QUESTIONS, vectors.get(3 * i + 2));
      embedded.add(new EmbeddedChunk(chunks.get(i), byName));
    }
    return embedded;
  }

  /**
   * {@code enriched} (the same chunks with a new summary and questions) with their summary and
   * questions vectors embedded again and their text vectors taken from {@code previous}.
   */
  public List<EmbeddedChunk> reembedEnrichment(List<EmbeddedChunk> previous, List<KnowledgeChunk> enriched) {
    List<String> texts = new ArrayList<>(enriched.size() * 2);
    for (KnowledgeChunk chunk : enriched) {
      texts.add(chunk.summary());
      texts.add(chunk.questionsForEmbedding());
    }
    List<float[]> vectors = embedChecked(texts);
    List<EmbeddedChunk> embedded = new ArrayList<>(enriched.size());
    for (int i = 0; i < enriched.size(); i++) {
      Map<VectorName, float[]> byName = new EnumMap<>(VectorName.class);
      byName.put(VectorName.TEXT, previous.get(i).vector(VectorName.TEXT));
      byName.put(VectorName.SUMMARY, vectors.get(2 * i));
      byName.put(VectorName.QUESTIONS, vectors.get(2 * i + 1));
      embedded.add(new EmbeddedChunk(enriched.get(i), byName));
    }
    return embedded;
  }

  /** The query's vector, to search any of the three vector spaces. */
  public float[] embedQuery(String query) {
    return embedChecked(List.of(query)).getFirst();
  }

  private List<float[]> embedChecked(List<String> texts) {
    List<float[]> vectors;
    try {
      vectors = model.embed(texts);
    } catch (IngestionException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IngestionException(Code.EMBEDDING_FAILED, "embedding with " + model.name() + " failed: " + e.getMessage(), e);
    }
    if (vectors.size() != texts.size()) {
      throw new IngestionException(
          Code.EMBEDDING_FAILED, model.name() + " returned " + vectors.size() + " vectors for " + texts.size() + " texts");
    }
    for (float[] vector : vectors) {
      if (vector.length != model.dimensions()) {
        throw new IngestionException(Code.EMBEDDING_FAILED,
            model.name() + " returned a vector of " + vector.length + " dimensions; expected " + model.dimensions());
      }
    }
    return vectors;
  }
}
