package dev.colloquy.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * PostgreSQL settings a benchmark tries on its own embedded database (ALTER SYSTEM and a reload),
 * so that a setting such as commit_delay can be compared without rebuilding the node. Only settings
 * a reload applies are accepted: one that needs a restart would silently not take effect.
 */
final class ReloadableDatabaseSettings {

  private static final Pattern NAME = Pattern.compile("[a-z_]+");
  private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9._-]+");

  private ReloadableDatabaseSettings() {}

  static void apply(DataSource dataSource, Map<String, String> settings) throws SQLException {
    if (settings.isEmpty()) {
      return;
    }
    try (Connection connection = dataSource.getConnection()) {
      for (Map.Entry<String, String> setting : settings.entrySet()) {
        String name = setting.getKey();
        String value = setting.getValue();
        if (!NAME.matcher(name).matches() || !VALUE.matcher(value).matches()) {
          throw new IllegalArgumentException("not a PostgreSQL setting: " + name + "=" + value);
        }
        String context = context(connection, name);
        if (context == null) {
          throw new IllegalArgumentException("PostgreSQL has no setting " + name);
        }
        if (context.equals("postmaster") || context.equals("internal")) {
          throw new IllegalArgumentException(name + " needs a restart of PostgreSQL: it cannot be tried here");
        }
        // ALTER SYSTEM takes no bind parameters; both parts matched the patterns above.
        try (Statement statement = connection.createStatement()) {
          statement.execute("ALTER SYSTEM SET " + name + " = '" + value + "'");
        }
      }
      try (Statement statement = connection.createStatement()) {
        statement.execute("SELECT pg_reload_conf()");
      }
    }
  }

  private static String context(Connection connection, String name) throws SQLException {
    try (PreparedStatement query = connection.prepareStatement("SELECT context FROM pg_settings WHERE name = ?")) {
      query.setString(1, name);
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? row.getString(1) : null;
      }
    }
  }
}
