package dev.colloquy.ingestion.documents;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** The JDBC store on a real (embedded) PostgreSQL, with its migration (in persistence, like every migration). */
class JdbcDocumentStoreTest extends DocumentStoreContract {

  private static EmbeddedPostgres postgres;
  private JdbcDocumentStore store;

  @BeforeAll
  static void startPostgres() throws IOException, SQLException {
    postgres = EmbeddedPostgres.start();
    for (String script : new String[] {"/db/migration/V2__knowledge_documents.sql", "/db/migration/V21__document_types.sql"}) {
      try (InputStream migration = JdbcDocumentStoreTest.class.getResourceAsStream(script);
          Connection connection = postgres.getPostgresDatabase().getConnection();
          Statement statement = connection.createStatement()) {
        statement.execute(new String(migration.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
  }

  @AfterAll
  static void stopPostgres() throws IOException {
    postgres.close();
  }

  @BeforeEach
  void emptyTable() throws SQLException {
    try (Connection connection = postgres.getPostgresDatabase().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("TRUNCATE knowledge_documents");
    }
    store = new JdbcDocumentStore(postgres.getPostgresDatabase());
  }

  @Override
  protected DocumentStore store() {
    return store;
  }
}
