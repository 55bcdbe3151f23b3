package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The read tables have one definition: migration V3 ends with the very script that a rebuild runs.
 * And the session list's cursor is opaque but exact.
 */
class ReadSideSchemaTest {

  @Test
  void migrationV3CreatesExactlyTheTablesARebuildCreates() throws IOException {
    String migration;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream("db/migration/V3__read_side.sql")) {
      assertThat(in).isNotNull();
      migration = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    String tables = ReadSide.tablesScript();

    assertThat(migration).endsWith(tables);
    for (String table : ReadSide.TABLES) {
      assertThat(tables).contains("CREATE TABLE IF NOT EXISTS " + table + " (");
    }
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
