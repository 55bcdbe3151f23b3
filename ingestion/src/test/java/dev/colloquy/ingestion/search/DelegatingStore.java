package dev.colloquy.ingestion.search;

import dev.colloquy.ingestion.chunk.KnowledgeChunk;
import dev.colloquy.ingestion.store.EmbeddedChunk;
import dev.colloquy.ingestion.store.ScoredChunk;
import dev.colloquy.ingestion.store.VectorName;
import dev.colloquy.ingestion.store.VectorStore;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** A store that does what another does; a test overrides the one operation it breaks. */
class DelegatingStore implements VectorStore {

  private final VectorStore store;

  DelegatingStore(VectorStore store) {
    this.store = store;
  }

  @Override
  public void upsert(String tenantId, List<EmbeddedChunk> chunks) {
    store.upsert(tenantId, chunks);
  }

  @Override
  public void publish(String tenantId, String documentId, Collection<String> retired) {
    store.publish(tenantId, documentId, retired);
  }

  @Override
  public void unpublish(String tenantId, String documentId) {
    store.unpublish(tenantId, documentId);
  }

  @Override
  public void delete(String tenantId, String documentId) {
    store.delete(tenantId, documentId);
  }

  @Override
  public List<ScoredChunk> searchDense(String tenantId, VectorName vector, float[] query, int limit) {
    return store.searchDense(tenantId, vector, query, limit);
  }

  @Override
  public List<ScoredChunk> searchText(String tenantId, String query, int limit) {
    return store.searchText(tenantId, query, limit);
  }

  @Override
  public Optional<KnowledgeChunk> searchableChunk(String tenantId, String documentId, int chunkIndex) {
    return store.searchableChunk(tenantId, documentId, chunkIndex);
  }

  @Override
  public int count(String tenantId, String documentId) {
    return store.count(tenantId, documentId);
  }

  @Override
  public long searchableCount(String tenantId) {
    return store.searchableCount(tenantId);
  }

  @Override
  public void close() {
    store.close();
  }
}
