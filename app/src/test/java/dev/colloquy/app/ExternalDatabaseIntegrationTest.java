package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.mockllm.MockLlmServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With COLLOQUY_DB_URL the engine uses that PostgreSQL server (here one started apart from it) and
 * starts none of its own: the journal lands in the external database, the data directory holds no
 * database files.
 */
class ExternalDatabaseIntegrationTest {

  @Test
  void anExternalDatabaseReceivesTheJournal(@TempDir Path dataDir, @TempDir Path pgDir) throws Exception {
    try (EmbeddedPostgres external = EmbeddedPostgres.builder().setDataDirectory(pgDir).start();
        MockLlmServer mock = TestColloquy.startMock()) {
      String url = "jdbc:postgresql://localhost:" + external.getPort() + "/postgres";
      String sessionId;
      try (Colloquy colloquy = TestColloquy.start(mock, dataDir, Map.of(
          "colloquy.storage.db.url", url, "colloquy.storage.db.user", "postgres",
          "colloquy.storage.db.password", "postgres"))) {
        Api api = TestColloquy.api(colloquy);
        sessionId = api.openSession();
        Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("hello"));
        assertThat(turn.status()).as(turn.body()).isEqualTo(200);
      }
      assertThat(Files.exists(dataDir.resolve("postgres"))).isFalse();
      try (Connection connection = external.getPostgresDatabase().getConnection();
          ResultSet events = connection.createStatement().executeQuery(
              "SELECT count(*) FROM event_journal WHERE persistence_id = 'ChatSession|" + sessionId + "'")) {
        events.next();
        assertThat(events.getLong(1)).isGreaterThanOrEqualTo(4);
      }
    }
  }
}
