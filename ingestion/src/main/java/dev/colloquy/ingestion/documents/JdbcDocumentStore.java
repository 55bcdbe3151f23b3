package dev.colloquy.ingestion.documents;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Document metadata in PostgreSQL, table {@code knowledge_documents} (schema in the persistence module's
 * {@code db/migration/V2__knowledge_documents.sql}, applied with the journal schema by Flyway at start-up).
 */
public final class JdbcDocumentStore implements DocumentStore {

  private static final String COLUMNS =
      "id, tenant_id, filename, file_type, version, is_active, status, chunk_count, error_code, error_message, created_at, updated_at, "
          + "document_type";
  private static final String UNIQUE_VIOLATION = "23505";
  private static final int VERSION_ATTEMPTS = 20;

  private final DataSource dataSource;

  public JdbcDocumentStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public KnowledgeDocument create(String tenantId, String fileName, String fileType, String documentType, Instant now) {
    for (int attempt = 1; ; attempt++) {
      try {
        return insertNextVersion(tenantId, fileName, fileType, documentType, now);
      } catch (SQLException e) {
        if (!UNIQUE_VIOLATION.equals(e.getSQLState()) || attempt == VERSION_ATTEMPTS) {
          throw failed(e);
        }
      }
    }
  }

  private KnowledgeDocument insertNextVersion(String tenantId, String fileName, String fileType, String documentType,
      Instant now) throws SQLException {
    String sql = "INSERT INTO knowledge_documents (" + COLUMNS + ") "
        + "SELECT ?, ?, ?, ?, COALESCE(MAX(version), 0) + 1, TRUE, 'pending', 0, NULL, NULL, ?, ?, ? "
        + "FROM knowledge_documents WHERE tenant_id = ? AND filename = ? RETURNING " + COLUMNS;
    try (Connection connection = dataSource.getConnection(); PreparedStatement insert = connection.prepareStatement(sql)) {
      insert.setObject(1, UUID.randomUUID());
      insert.setString(2, tenantId);
      insert.setString(3, fileName);
      insert.setString(4, fileType);
      insert.setTimestamp(5, Timestamp.from(now));
      insert.setTimestamp(6, Timestamp.from(now));
      insert.setString(7, documentType);
      insert.setString(8, tenantId);
      insert.setString(9, fileName);
      try (ResultSet rows = insert.executeQuery()) {
        rows.next();
        return read(rows);
      }
    }
  }

  @Override
  public Optional<KnowledgeDocument> find(String tenantId, String documentId) {
    Optional<UUID> id = uuid(documentId);
    if (id.isEmpty()) {
      return Optional.empty();
    }
    List<KnowledgeDocument> found = query(
        "SELECT " + COLUMNS + " FROM knowledge_documents WHERE tenant_id = ? AND id = ?", tenantId, id.get());
    return found.stream().findFirst();
  }

  @Override
  public void update(KnowledgeDocument document) {
    String sql = "UPDATE knowledge_documents SET is_active = ?, status = ?, chunk_count = ?, error_code = ?, "
        + "error_message = ?, updated_at = ? WHERE tenant_id = ? AND id = ?";
    try (Connection connection = dataSource.getConnection(); PreparedStatement update = connection.prepareStatement(sql)) {
      update.setBoolean(1, document.active());
      update.setString(2, document.status().wireName());
      update.setInt(3, document.chunkCount());
      update.setString(4, document.error().map(KnowledgeDocument.Failure::code).orElse(null));
      update.setString(5, document.error().map(KnowledgeDocument.Failure::message).orElse(null));
      update.setTimestamp(6, Timestamp.from(document.updatedAt()));
      update.setString(7, document.tenantId());
      update.setObject(8, UUID.fromString(document.id()));
      update.executeUpdate();
    } catch (SQLException e) {
      throw failed(e);
    }
  }

  @Override
  public List<KnowledgeDocument> listActive(String tenantId) {
    return query("SELECT " + COLUMNS + " FROM knowledge_documents WHERE tenant_id = ? AND is_active "
        + "ORDER BY created_at DESC, version DESC", tenantId);
  }

  @Override
  public List<KnowledgeDocument> activeVersions(String tenantId, String fileName) {
    return query("SELECT " + COLUMNS + " FROM knowledge_documents WHERE tenant_id = ? AND filename = ? AND is_active "
        + "ORDER BY version", tenantId, fileName);
  }

  @Override
  public List<KnowledgeDocument> unfinished() {
    return query("SELECT " + COLUMNS + " FROM knowledge_documents WHERE is_active AND status IN ('pending', 'processing') "
        + "ORDER BY created_at, version");
  }

  private List<KnowledgeDocument> query(String sql, Object... parameters) {
    try (Connection connection = dataSource.getConnection(); PreparedStatement select = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        select.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rows = select.executeQuery()) {
        List<KnowledgeDocument> documents = new ArrayList<>();
        while (rows.next()) {
          documents.add(read(rows));
        }
        return documents;
      }
    } catch (SQLException e) {
      throw failed(e);
    }
  }

  private static KnowledgeDocument read(ResultSet row) throws SQLException {
    String errorCode = row.getString("error_code");
    Optional<KnowledgeDocument.Failure> error = errorCode == null
        ? Optional.empty()
        : Optional.of(new KnowledgeDocument.Failure(errorCode, row.getString("error_message")));
    return new KnowledgeDocument(
        row.getObject("id", UUID.class).toString(),
        row.getString("tenant_id"),
        row.getString("filename"),
        row.getString("file_type"),
        row.getInt("version"),
        row.getBoolean("is_active"),
        DocumentStatus.fromWireName(row.getString("status")),
        row.getInt("chunk_count"),
        error,
        row.getTimestamp("created_at").toInstant(),
        row.getTimestamp("updated_at").toInstant(),
        row.getString("document_type"));
  }

  private static Optional<UUID> uuid(String id) {
    try {
      return Optional.of(UUID.fromString(id));
    } catch (IllegalArgumentException notAUuid) {
      return Optional.empty();
    }
  }

  private static IllegalStateException failed(SQLException e) {
    return new IllegalStateException("knowledge_documents: " + e.getMessage(), e);
  }
}
