package dev.colloquy.persistence.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A turn's session is found by its tenant only, on a real (embedded) PostgreSQL with the migration applied. */
class JdbcTurnSessionsTest {

  private static EmbeddedPostgres postgres;
  private static ExecutorService executor;
  private static JdbcTurnSessions turns;

  @BeforeAll
  static void start() throws Exception {
    postgres = EmbeddedPostgres.start();
    executor = Executors.newVirtualThreadPerTaskExecutor();
    turns = new JdbcTurnSessions(postgres.getPostgresDatabase(), executor);
    try (InputStream migration = JdbcTurnSessions.class.getResourceAsStream("/db/migration/V10__turn_sessions.sql");
        Connection connection = postgres.getPostgresDatabase().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(new String(migration.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    executor.shutdownNow();
    postgres.close();
  }

  @Test
  void aTurnsSessionIsFoundByItsTenantAndByNoOther() throws Exception {
    turns.record("t-1", "s-1", "acme").toCompletableFuture().get();

    assertThat(turns.sessionOf("t-1", "acme").toCompletableFuture().get()).contains("s-1");
    assertThat(turns.sessionOf("t-1", "globex").toCompletableFuture().get()).isEmpty();
    assertThat(turns.sessionOf("t-2", "acme").toCompletableFuture().get()).isEqualTo(Optional.empty());
  }

  @Test
  void recordingATurnAgainKeepsItsFirstSession() throws Exception {
    turns.record("t-9", "s-9", "acme").toCompletableFuture().get();
    turns.record("t-9", "s-other", "globex").toCompletableFuture().get();

    assertThat(turns.sessionOf("t-9", "acme").toCompletableFuture().get()).contains("s-9");
    assertThat(turns.sessionOf("t-9", "globex").toCompletableFuture().get()).isEmpty();
  }
}
