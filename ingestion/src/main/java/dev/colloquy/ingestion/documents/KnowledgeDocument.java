package dev.colloquy.ingestion.documents;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One uploaded version of a file (the {@code knowledge_documents} row of seed 004 §4).
 *
 * @param id the document id (a UUID); each upload, even of the same file name, gets its own
 * @param tenantId the owner
 * @param fileName the uploaded file's name
 * @param fileType pdf, docx, html, md, txt or csv
 * @param version 1 for a file name's first upload in the tenant, then 2, 3, …
 * @param active false once deleted or replaced by a newer ready version; inactive documents are
 *     neither listed nor searched
 * @param status pending, processing, ready or failed
 * @param chunkCount chunks stored once ready, else 0
 * @param error why it failed, when it failed
 * @param createdAt when it was uploaded
 * @param updatedAt when it last changed
 * @param documentType what kind of document its uploader says it is (one of {@link #DOCUMENT_TYPES}), or null
 */
public record KnowledgeDocument(
    String id,
    String tenantId,
    String fileName,
    String fileType,
    int version,
    boolean active,
    DocumentStatus status,
    int chunkCount,
    Optional<Failure> error,
    Instant createdAt,
    Instant updatedAt,
    String documentType) {

  /** The kinds of document an upload may be declared as (seed 004 §5.4). */
  public static final List<String> DOCUMENT_TYPES = List.of("faq", "policy", "product_catalog", "sop");

  /** A stable error code (see {@code IngestionException.Code#wireName}) and a message for people. */
  public record Failure(String code, String message) {}

  public KnowledgeDocument {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(tenantId, "tenantId");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(error, "error");
  }

  public static KnowledgeDocument pending(String id, String tenantId, String fileName, String fileType, int version,
      String documentType, Instant now) {
    return new KnowledgeDocument(id, tenantId, fileName, fileType, version, true, DocumentStatus.PENDING, 0,
        Optional.empty(), now, now, documentType);
  }

  public KnowledgeDocument processing(Instant now) {
    return new KnowledgeDocument(id, tenantId, fileName, fileType, version, active, DocumentStatus.PROCESSING, 0, Optional.empty(), createdAt, now,
        documentType);
  }

  public KnowledgeDocument ready(int chunks, Instant now) {
    return new KnowledgeDocument(id, tenantId, fileName, fileType, version, active, DocumentStatus.READY, chunks, Optional.empty(), createdAt, now,
        documentType);
  }

  public KnowledgeDocument failed(String code, String message, Instant now) {
    return new KnowledgeDocument(id, tenantId, fileName, fileType, version, active, DocumentStatus.FAILED, 0,
        Optional.of(new Failure(code, message)), createdAt, now, documentType);
  }

  public KnowledgeDocument deactivated(Instant now) {
    return new KnowledgeDocument(id, tenantId, fileName, fileType, version, false, status, chunkCount, error, createdAt, now,
        documentType);
  }

  public boolean searchable() {
    return active && status == DocumentStatus.READY;
  }
}
