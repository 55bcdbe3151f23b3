package dev.colloquy.config;

/** An external PostgreSQL server. */
public record DatabaseSettings(String url, String user, String password) {

  public DatabaseSettings {
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new SettingsException(
          "colloquy.storage.db.url",
          "COLLOQUY_DB_URL",
          "must be a PostgreSQL JDBC URL such as jdbc:postgresql://host:5432/colloquy");
    }
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return "DatabaseSettings[url=" + url + ", user=" + user + ", password=***]";
  }
}
