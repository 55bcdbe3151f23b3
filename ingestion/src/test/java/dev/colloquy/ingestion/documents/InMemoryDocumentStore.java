package dev.colloquy.ingestion.documents;

import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** Document metadata in memory: lost on restart. For tests and for runs without a database. */
public final class InMemoryDocumentStore implements DocumentStore {

  private final Map<String, KnowledgeDocument> byKey = new LinkedHashMap<>();

  @Override
  public synchronized KnowledgeDocument create(String tenantId, String fileName, String fileType, String documentType,
      Instant now) {
    int version = byKey.values().stream()
        .filter(doc -> doc.tenantId().equals(tenantId) && doc.fileName().equals(fileName))
        .mapToInt(KnowledgeDocument::version)
        .max()
        .orElse(0) + 1;
    KnowledgeDocument created = KnowledgeDocument.pending(UUID.randomUUID().toString(), tenantId, fileName, fileType, version,
        documentType, now);
    byKey.put(key(tenantId, created.id()), created);
    return created;
  }

  @Override
  public synchronized Optional<KnowledgeDocument> find(String tenantId, String documentId) {
    return Optional.ofNullable(byKey.get(key(tenantId, documentId)));
  }

  @Override
  public synchronized void update(KnowledgeDocument document) {
    byKey.replace(key(document.tenantId(), document.id()), document);
  }

  @Override
  public synchronized List<KnowledgeDocument> listActive(String tenantId) {
    return byKey.values().stream()
        .filter(doc -> doc.tenantId().equals(tenantId) && doc.active())
        .sorted(Comparator.comparing(KnowledgeDocument::createdAt).thenComparing(KnowledgeDocument::version).reversed())
        .toList();
  }

  @Override
  public synchronized List<KnowledgeDocument> activeVersions(String tenantId, String fileName) {
    return byKey.values().stream()
        .filter(doc -> doc.tenantId().equals(tenantId) && doc.fileName().equals(fileName) && doc.active())
        .toList();
  }

  @Override
  public synchronized List<KnowledgeDocument> unfinished() {
    return byKey.values().stream()
        .filter(doc -> doc.active() && (doc.status() == DocumentStatus.PENDING || doc.status() == DocumentStatus.PROCESSING))
        .sorted(Comparator.comparing(KnowledgeDocument::createdAt).thenComparing(KnowledgeDocument::version))
        .toList();
  }

  private static String key(String tenantId, String documentId) {
    return tenantId + '\u0000' + documentId;
  }
}
