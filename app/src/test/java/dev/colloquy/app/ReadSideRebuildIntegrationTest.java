package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.Database;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The read tables are only a projection of the journal: dropped, or emptied by
 * {@code colloquy projections rebuild}, they are refilled to exactly what they were.
 */
class ReadSideRebuildIntegrationTest {

  private static final List<String> SNAPSHOT_QUERIES = List.of(
      "SELECT * FROM sessions ORDER BY session_id",
      "SELECT * FROM session_usage ORDER BY session_id, provider, model",
      "SELECT * FROM messages ORDER BY message_id",
      "SELECT * FROM billing_events ORDER BY session_id, kind");

  @TempDir
  static Path dataDir;

  private static MockLlmServer mock;
  /** Every row of the read tables as the first server left them. */
  private static List<List<Map<String, Object>>> before;

  @BeforeAll
  static void fillTheReadSide() throws Exception {
    mock = TestColloquy.startMock();
    try (Colloquy first = TestColloquy.start(mock, dataDir)) {
      Api api = TestColloquy.api(first);
      String kept = api.openSession();
      String closed = api.openSession();
      for (String message : List.of("One", "Two")) {
        assertThat(api.post("/v1/sessions/" + kept + "/turns", Api.turn(message)).status()).isEqualTo(200);
      }
      assertThat(api.post("/v1/sessions/" + closed + "/turns", Api.turn("Three")).status()).isEqualTo(200);
      assertThat(api.post("/v1/sessions/" + closed + "/close", "{}").status()).isEqualTo(200);
      ReadTables tables = new ReadTables(first.database().dataSource());
      ReadTables.await("both sessions are in the read side", Duration.ofSeconds(20),
          () -> Integer.valueOf(2).equals(tables.session(kept).get("turn_count"))
              && "closed".equals(tables.session(closed).get("status"))
              && tables.rows("SELECT 1 FROM messages").size() == 6
              && tables.rows("SELECT 1 FROM billing_events").size() == 3);
      before = snapshot(tables);
    }
    assertThat(before.get(0)).hasSize(2);
  }

  @AfterAll
  static void stopMock() {
    if (mock != null) {
      mock.close();
    }
  }

  @Test
  void droppedReadTablesAreRebuiltFromTheJournalAtStart() throws Exception {
    try (Database database = Database.open(settings().storage())) {
      ReadTables tables = new ReadTables(database.dataSource());
      tables.execute("DROP TABLE sessions, session_usage, messages, billing_events");
    }

    try (Colloquy restarted = TestColloquy.start(mock, dataDir)) {
      awaitSnapshot(new ReadTables(restarted.database().dataSource()));
    }
  }

  /** A journal written before session events were tagged has no tags and no read side yet. */
  @Test
  void aJournalWrittenBeforeEventsWereTaggedIsProjectedToo() throws Exception {
    try (Database database = Database.open(settings().storage())) {
      ReadTables tables = new ReadTables(database.dataSource());
      tables.execute("DELETE FROM event_tag");
      tables.execute("TRUNCATE sessions, session_usage, messages, billing_events");
      tables.execute("DELETE FROM pekko_projection_offset_store");
    }

    try (Colloquy restarted = TestColloquy.start(mock, dataDir)) {
      awaitSnapshot(new ReadTables(restarted.database().dataSource()));
    }
  }

  @Test
  void theRebuildCommandEmptiesTheReadSideAndTheServerRefillsIt() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = new CommandLine(new Cli()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute("projections", "rebuild", "--data-dir", dataDir.toString());
    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString()).contains("refills");
    try (Database database = Database.open(settings().storage())) {
      ReadTables tables = new ReadTables(database.dataSource());
      assertThat(tables.rows("SELECT 1 FROM sessions")).isEmpty();
      assertThat(tables.rows("SELECT 1 FROM pekko_projection_offset_store WHERE projection_name = 'sessions'")).isEmpty();
    }

    try (Colloquy restarted = TestColloquy.start(mock, dataDir)) {
      awaitSnapshot(new ReadTables(restarted.database().dataSource()));
    }
  }

  private static ColloquySettings settings() {
    return ColloquySettings.create(Colloquy.loadConfig(TestColloquy.overrides(mock, dataDir, Map.of())));
  }

  private static void awaitSnapshot(ReadTables tables) throws Exception {
    try {
      ReadTables.await("the read tables are what they were", Duration.ofSeconds(30),
          () -> snapshot(tables).equals(before));
    } finally {
      assertThat(snapshot(tables)).isEqualTo(before);
    }
  }

  private static List<List<Map<String, Object>>> snapshot(ReadTables tables) throws Exception {
    List<List<Map<String, Object>>> rows = new java.util.ArrayList<>();
    for (String query : SNAPSHOT_QUERIES) {
      rows.add(tables.rows(query));
    }
    return rows;
  }
}
