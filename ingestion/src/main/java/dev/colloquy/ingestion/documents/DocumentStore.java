package dev.colloquy.ingestion.documents;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Document metadata (not chunks). Implementations are thread-safe. */
public interface DocumentStore {

  /**
   * Records a new pending upload of {@code fileName}, with the next version number for that file
   * name in the tenant, assigned atomically; {@code documentType} may be null.
   */
  KnowledgeDocument create(String tenantId, String fileName, String fileType, String documentType, Instant now);

  default KnowledgeDocument create(String tenantId, String fileName, String fileType, Instant now) {
    return create(tenantId, fileName, fileType, null, now);
  }

  Optional<KnowledgeDocument> find(String tenantId, String documentId);

  /** Replaces the stored record with the same tenant and id. */
  void update(KnowledgeDocument document);

  /** The tenant's active documents, newest first. */
  List<KnowledgeDocument> listActive(String tenantId);

  /** The tenant's active versions of one file name, any status. */
  List<KnowledgeDocument> activeVersions(String tenantId, String fileName);

  /** Every tenant's active documents still pending or processing, oldest first. */
  List<KnowledgeDocument> unfinished();
}
