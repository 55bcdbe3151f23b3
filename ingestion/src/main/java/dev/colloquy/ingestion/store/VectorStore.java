package dev.colloquy.ingestion.store;

import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where chunks and their vectors live. Every operation is scoped to one tenant and every search
 * filters on it: a tenant never sees another tenant's chunks.
 *
 * <p>Visibility: chunks written by {@link #upsert} are not searchable until their document is
 * {@link #publish}ed, so a document becomes searchable only once all its chunks are stored, and a
 * re-upload replaces the old version in one step. Searches only return chunks of published
 * documents ({@code latestVersion = true}). Blocking; implementations are thread-safe.
 */
public interface VectorStore extends AutoCloseable {

  /**
   * Stores chunks (all of one tenant), replacing any with the same chunk id. A chunk of a document
   * that is already published stays searchable; any other is stored unsearchable.
   */
  void upsert(String tenantId, List<EmbeddedChunk> chunks);

  /** Makes a document's chunks searchable and, in the same step where the store can, hides {@code retired} documents'. */
  void publish(String tenantId, String documentId, Collection<String> retired);

  /** Hides a document's chunks from search at once; they stay stored until {@link #delete}. */
  void unpublish(String tenantId, String documentId);

  /** Removes a document's chunks. */
  void delete(String tenantId, String documentId);

  /** Nearest chunks to {@code query} in one vector space, best first; scores are cosine similarities. */
  List<ScoredChunk> searchDense(String tenantId, VectorName vector, float[] query, int limit);

  /**
   * The nearest chunks to {@code query} in each of {@code vectors}, as {@link #searchDense} gives them
   * one space at a time; in one call, so a store can read a chunk found in several spaces once.
   */
  default Map<VectorName, List<ScoredChunk>> searchDenseEach(String tenantId, Collection<VectorName> vectors, float[] query, int limit) {
    Map<VectorName, List<ScoredChunk>> hits = new EnumMap<>(VectorName.class);
    for (VectorName vector : vectors) {
      hits.put(vector, searchDense(tenantId, vector, query, limit));
    }
    return hits;
  }

  /**
   * Best BM25 matches of {@code query} over chunk text and section heading, best first. The query is
   * its first {@link EnglishText#MAX_QUERY_TERMS} distinct terms, so a query of any length is served.
   */
  List<ScoredChunk> searchText(String tenantId, String query, int limit);

  /**
   * The chunk at {@code chunkIndex} of a published document of the tenant (the passage a citation
   * names), or empty when there is none: another tenant's, an unpublished or a retired document's,
   * or an index the document does not have.
   */
  Optional<KnowledgeChunk> searchableChunk(String tenantId, String documentId, int chunkIndex);

  /** How many chunks of a document are stored, searchable or not. */
  int count(String tenantId, String documentId);

  /** How many of the tenant's chunks a search can find now (published, latest version). */
  long searchableCount(String tenantId);

  /**
   * Whether the tenant certainly has nothing to search, told at once on the calling thread (no index
   * opened, no query run). A store that cannot tell so cheaply says false, and {@link
   * #searchableCount} decides.
   */
  default boolean holdsNothingFor(String tenantId) {
    return false;
  }

  @Override
  void close();
}
