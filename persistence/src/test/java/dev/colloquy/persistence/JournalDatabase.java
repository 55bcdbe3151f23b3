package dev.colloquy.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.DatabaseSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.flywaydb.core.Flyway;

/** A migrated embedded PostgreSQL and an actor system whose journal and read journal are configured as the node's. */
final class JournalDatabase implements AutoCloseable {

  private final EmbeddedPostgres postgres;
  private final ActorTestKit testKit;
  private final JdbcReadJournal readJournal;

  private JournalDatabase(EmbeddedPostgres postgres, ActorTestKit testKit) {
    this.postgres = postgres;
    this.testKit = testKit;
    this.readJournal = PersistenceQuery.get(testKit.system()).getReadJournalFor(JdbcReadJournal.class,
        JdbcReadJournal.Identifier());
  }

  /** {@code settings} go over the node's (the persistence module's reference configuration). */
  static JournalDatabase start(String systemName, Config settings) throws Exception {
    EmbeddedPostgres postgres = EmbeddedPostgres.start();
    Flyway.configure().dataSource(postgres.getPostgresDatabase()).locations("classpath:db/migration").load().migrate();
    DatabaseSettings database = new DatabaseSettings(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "");
    return new JournalDatabase(postgres, ActorTestKit.create(systemName, settings
        .withFallback(JournalConfig.forDatabase(database))
        .withFallback(ConfigFactory.load())));
  }

  DataSource dataSource() {
    return postgres.getPostgresDatabase();
  }

  ActorTestKit testKit() {
    return testKit;
  }

  JdbcReadJournal readJournal() {
    return readJournal;
  }

  /** No event and no tag left. */
  void empty() throws SQLException {
    try (Connection connection = dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("TRUNCATE event_journal, event_tag");
    }
  }

  @Override
  public void close() throws Exception {
    testKit.shutdownTestKit();
    postgres.close();
  }
}
