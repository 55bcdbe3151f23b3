package dev.colloquy.persistence.readside;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.stream.Collectors;
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

  /**
   * The plan PostgreSQL ran {@code sql} with, with its actual row counts ({@code EXPLAIN (ANALYZE, FORMAT
   * JSON)}); whatever the statement changed is rolled back. Its {@code ?} parameters, if any, are bound
   * to {@code values} as the code binds them: the statement is prepared and executed with them.
   */
  JsonNode plan(String sql, String... values) throws Exception {
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char c : sql.toCharArray()) {
      numbered.append(c == '?' ? "$" + ++n : String.valueOf(c));
    }
    String arguments = Arrays.stream(values).map(value -> "'" + value.replace("'", "''") + "'")
        .collect(Collectors.joining(", "));
    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      String explained = n == 0 ? sql : "EXECUTE planned(" + arguments + ")";
      if (n > 0) {
        statement.execute("PREPARE planned AS " + numbered);
      }
      try (ResultSet result = statement.executeQuery("EXPLAIN (ANALYZE, FORMAT JSON) " + explained)) {
        result.next();
        return new ObjectMapper().readTree(result.getString(1));
      } finally {
        connection.rollback();
        statement.execute("DEALLOCATE ALL");
      }
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    postgres = EmbeddedPostgres.start();
    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      for (String migration : ReadSide.READ_SIDE_MIGRATIONS) {
        statement.execute(ReadSide.script(migration));
      }
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
