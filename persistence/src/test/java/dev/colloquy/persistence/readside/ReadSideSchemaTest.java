package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.session.ChatSession;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The read tables have one definition, the migrations, which a rebuild runs again; the session events
 * it tags are found by the entity's own key. And the session list's cursor is opaque but exact.
 */
class ReadSideSchemaTest {

  @Test
  void aRebuildRunsTheMigrationsThatCreateEveryReadTableAndOnlyCreatesWhatIsMissing() {
    String migrations = ReadSide.READ_SIDE_MIGRATIONS.stream().map(ReadSide::script).collect(Collectors.joining("\n"));

    for (String table : ReadSide.TABLES) {
      assertThat(migrations).contains("CREATE TABLE IF NOT EXISTS " + table + " (");
    }
    assertThat(migrations.lines().map(String::strip).filter(line -> !line.startsWith("--")
        && (line.startsWith("CREATE") || line.startsWith("ALTER") || line.startsWith("INSERT") || line.startsWith("DROP"))))
        .allSatisfy(statement -> assertThat(statement)
            .matches("(CREATE (TABLE|INDEX|UNIQUE INDEX) IF NOT EXISTS|ALTER TABLE \\w+ ADD COLUMN IF NOT EXISTS"
                + "|ALTER TABLE \\w+ DROP CONSTRAINT IF EXISTS|DROP INDEX IF EXISTS) .*"));
  }

  @Test
  void theSessionEventsAreThoseOfTheSessionEntity() {
    String sessionPersistenceId = ChatSession.persistenceId("3f0c").id();

    assertThat(ReadSide.SESSION_PERSISTENCE_IDS).endsWith("%");
    assertThat(sessionPersistenceId).startsWith(ReadSide.SESSION_PERSISTENCE_IDS.replace("%", ""));
  }

  @Test
  void aCursorDecodesToWhatWasEncodedToTheNanosecond() {
    SessionCursor cursor = new SessionCursor(Instant.parse("2026-11-21T10:00:00.123456789Z"), "3f0c|odd-id");

    assertThat(SessionCursor.decode(cursor.encode())).contains(cursor);
  }

  @Test
  void anythingElseIsNotACursor() {
    for (String bad : new String[] {"", "not base64!", encode("no-bar"), encode("1.2|"), encode("x.y|id"),
        encode("12|id"), encode(Long.MAX_VALUE + ".999999999999|id")}) {
      assertThat(SessionCursor.decode(bad)).as(bad).isEmpty();
    }
  }

  private static String encode(String plain) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }
}
