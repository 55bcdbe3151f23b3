package dev.colloquy.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.colloquy.config.DatabaseSettings;

/** The Pekko settings that point the JDBC journal, snapshot store and read journal at the database. */
public final class JournalConfig {

  private JournalConfig() {}

  public static Config forDatabase(DatabaseSettings db) {
    String base = "pekko-persistence-jdbc.shared-databases.colloquy.db.";
    return ConfigFactory.empty()
        .withValue(base + "url", ConfigValueFactory.fromAnyRef(db.url()))
        .withValue(base + "user", ConfigValueFactory.fromAnyRef(db.user()))
        .withValue(base + "password", ConfigValueFactory.fromAnyRef(db.password()));
  }
}
