package dev.colloquy.persistence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/** The plans PostgreSQL runs statements with, for tests that check what a statement reads. */
public final class QueryPlans {

  private QueryPlans() {}

  /**
   * The plan PostgreSQL ran {@code sql} with, with its actual row counts ({@code EXPLAIN (ANALYZE, FORMAT
   * JSON)}); whatever the statement changed is rolled back. Its {@code ?} parameters, if any, are bound
   * to {@code values} as the code binds them: the statement is prepared and executed with them.
   */
  public static JsonNode explain(DataSource dataSource, String sql, String... values) throws Exception {
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char c : sql.toCharArray()) {
      numbered.append(c == '?' ? "$" + ++n : String.valueOf(c));
    }
    String arguments = Arrays.stream(values).map(value -> "'" + value.replace("'", "''") + "'")
        .collect(Collectors.joining(", "));
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
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
}
