package dev.colloquy.persistence.readside;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.persistence.QueryPlans;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real (embedded) PostgreSQL with the read side's tables, for one test class: started with the
 * read side's migrations before its first test, emptied before each test, stopped after the last. A
 * test class holds it in a static {@code @RegisterExtension} field; its own {@code @BeforeAll} methods
 * run after the database is up.
 */
final class ReadSideDatabase implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

  private EmbeddedPostgres postgres;

  DataSource dataSource() {
    return postgres.getPostgresDatabase();
  }

  /** The plan PostgreSQL ran {@code sql} with, bound to {@code values}: see {@link QueryPlans#explain}. */
  JsonNode plan(String sql, String... values) throws Exception {
    return QueryPlans.explain(dataSource(), sql, values);
  }

  /** Runs one migration script (a classpath path such as {@code db/migration/V1__x.sql}) on the database. */
  void migrate(String migration) throws Exception {
    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      statement.execute(ReadSide.script(migration));
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    postgres = EmbeddedPostgres.start();
    for (String migration : ReadSide.READ_SIDE_MIGRATIONS) {
      migrate(migration);
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("TRUNCATE " + String.join(", ", ReadSide.TABLES));
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    postgres.close();
  }
}
