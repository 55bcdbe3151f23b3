package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.Database;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deletion finishes even when the node dies right after answering it: {@code kill -9} between
 * the 204 and the purge of the journal, then a restart, and the session's events are gone but for
 * the deletion marker; its snapshots too.
 */
class DeletionAcrossCrashIntegrationTest {

  private static final Duration PURGED_WITHIN = Duration.ofSeconds(60);

  @RegisterExtension
  final ChildColloquies children = new ChildColloquies();

  @TempDir
  Path dataDir;

  private static MockLlmServer mock;

  @BeforeAll
  static void startMock() {
    mock = TestColloquy.startMock();
  }

  @AfterAll
  static void stopMock() {
    mock.close();
  }

  @Test
  void aSessionDeletedJustBeforeAKillIsPurgedAfterTheRestart() throws Exception {
    // A snapshot every 2 events, so the session has snapshots to purge too.
    Map<String, String> env = Map.of("JAVA_TOOL_OPTIONS", "-Dcolloquy.session.snapshot-every=2");
    ChildColloquy first = children.start(dataDir, mock, env);
    Api api = first.api();
    String sessionId = api.openSession();
    for (String message : List.of("Remember my card number", "And my address")) {
      assertThat(api.post("/v1/sessions/" + sessionId + "/turns", Api.turn(message)).status()).isEqualTo(200);
    }
    assertThat(api.get("/v1/sessions/" + sessionId + "/journal").status()).isEqualTo(200);

    assertThat(api.send("DELETE", "/v1/sessions/" + sessionId, null).status()).isEqualTo(204);
    first.kill();

    ChildColloquy second = children.start(dataDir, mock, env);
    api = second.api();
    assertThat(api.get("/v1/sessions/" + sessionId).status()).isEqualTo(404);
    Api restarted = api;
    ReadTables.await("the deleted session's journal is purged", PURGED_WITHIN,
        () -> restarted.get("/v1/sessions/" + sessionId + "/journal").status() == 404);
    second.stop();

    String persistenceId = ChatSession.persistenceId(sessionId).id();
    try (Database database = Database.openExisting(ColloquySettings.create(ConfigFactory.parseMap(
            Map.of("colloquy.storage.data-dir", dataDir.toString())).withFallback(ConfigFactory.load())).storage())) {
      assertThat(column(database, "SELECT event_ser_manifest FROM event_journal WHERE persistence_id = ?", persistenceId))
          .as("only the deletion marker is left").hasSize(1).allMatch(manifest -> manifest.contains("SessionDeleted"));
      assertThat(column(database, "SELECT sequence_number FROM snapshot WHERE persistence_id = ?", persistenceId))
          .isEmpty();
    }
  }

  private static List<String> column(Database database, String sql, String parameter) throws Exception {
    List<String> values = new ArrayList<>();
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, parameter);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          values.add(rows.getString(1));
        }
      }
    }
    return values;
  }
}
