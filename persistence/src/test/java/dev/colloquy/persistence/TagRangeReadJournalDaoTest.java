package dev.colloquy.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.Sequence;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Events by tag through the read journal as the node configures it (its DAO puts the offset range on
 * the tag's rows): the tag's events after the offset, in order, none deleted, across pages; and the
 * query reads the tag's rows, not every event in the range.
 */
class TagRangeReadJournalDaoTest {

  private static final int STRING_SERIALIZER = 20;

  private static JournalDatabase database;
  private static ActorTestKit testKit;
  private static JdbcReadJournal readJournal;

  @BeforeAll
  static void start() throws Exception {
    // Pages of two events, so a tag's events come in several queries.
    database = JournalDatabase.start("read-journal", ConfigFactory.parseString("jdbc-read-journal.max-buffer-size = 2"));
    testKit = database.testKit();
    readJournal = database.readJournal();
  }

  @AfterAll
  static void stop() throws Exception {
    database.close();
  }

  @BeforeEach
  void empty() throws SQLException {
    database.empty();
  }

  @Test
  void theReadJournalIsConfiguredWithThisDao() {
    assertThat(testKit.system().settings().config().getString("jdbc-read-journal.dao"))
        .isEqualTo(TagRangeReadJournalDao.class.getName());
  }

  @Test
  void aTagsEventsAfterTheOffsetComeInOrderAcrossPagesWithoutOtherTagsOrDeletedEvents() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      for (int i = 1; i <= 12; i++) {
        journal(connection, "session-" + i % 3, i, "event " + i, "slice-" + i % 4, false);
      }
      long deleted = journal(connection, "session-x", 1, "deleted", "slice-1", true);
      assertThat(deleted).isPositive();
    }

    assertThat(events("slice-1", Offset.noOffset())).containsExactly("event 1", "event 5", "event 9");
    assertThat(events("slice-2", Offset.noOffset())).containsExactly("event 2", "event 6", "event 10");
    long afterFirst = ordering("event 5");
    assertThat(events("slice-1", Offset.sequence(afterFirst))).containsExactly("event 9");
    assertThat(events("slice-0", Offset.sequence(ordering("event 12")))).isEmpty();
  }

  @Test
  void theEnvelopesCarryTheEventsPersistenceIdSequenceNumberAndOrdering() throws SQLException {
    long ordering;
    try (Connection connection = database.dataSource().getConnection()) {
      journal(connection, "session-a", 1, "other", "slice-2", false);
      ordering = journal(connection, "session-a", 2, "hello", "slice-1", false);
    }
    EventEnvelope envelope = envelopes("slice-1", Offset.noOffset()).getFirst();
    assertThat(envelope.persistenceId()).isEqualTo("session-a");
    assertThat(envelope.sequenceNr()).isEqualTo(2);
    assertThat(envelope.offset()).isEqualTo(new Sequence(ordering));
    assertThat(envelope.event()).isEqualTo("hello");
  }

  @Test
  void theQueryReadsTheTagsEventsNotEveryEventInTheRange() throws Exception {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      for (int i = 1; i <= 2000; i++) {
        journal(connection, "session-" + i % 50, i, "event " + i, "slice-" + i % 4, false);
      }
      connection.commit();
      try (Statement statement = connection.createStatement()) {
        statement.execute("ANALYZE event_journal, event_tag");
      }
    }
    long first = ordering("event 1") - 1;
    JsonNode plan = QueryPlans.explain(database.dataSource(), TagRangeReadJournalDao.EVENTS_BY_TAG, "slice-1",
        String.valueOf(first), String.valueOf(first + 2000), "500");

    // 500 of the tag's events: the journal's rows read are those, not the 2,000 in the range.
    long journalRowsRead = 0;
    for (JsonNode node : plan.findParents("Relation Name")) {
      if (node.path("Relation Name").asText().equals("event_journal")) {
        // PostgreSQL reports both counts per loop.
        journalRowsRead += (node.path("Actual Rows").asLong() + node.path("Rows Removed by Filter").asLong())
            * node.path("Actual Loops").asLong(1);
      }
    }
    assertThat(journalRowsRead).isEqualTo(500);
  }

  private static List<String> events(String tag, Offset offset) {
    return envelopes(tag, offset).stream().map(envelope -> (String) envelope.event()).toList();
  }

  private static List<EventEnvelope> envelopes(String tag, Offset offset) {
    return readJournal.currentEventsByTag(tag, offset).runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().orTimeout(20, TimeUnit.SECONDS)
        .join();
  }

  private static long journal(Connection connection, String persistenceId, long sequenceNr, String event, String tag,
      boolean deleted) throws SQLException {
    long ordering;
    try (PreparedStatement insert = connection.prepareStatement("""
            INSERT INTO event_journal (persistence_id, sequence_number, deleted, writer, write_timestamp,
              event_ser_id, event_ser_manifest, event_payload) VALUES (?, ?, ?, 'writer', 0, ?, '', ?)
            RETURNING ordering""")) {
      insert.setString(1, persistenceId);
      insert.setLong(2, sequenceNr);
      insert.setBoolean(3, deleted);
      insert.setInt(4, STRING_SERIALIZER);
      insert.setBytes(5, event.getBytes(StandardCharsets.UTF_8));
      try (ResultSet result = insert.executeQuery()) {
        result.next();
        ordering = result.getLong(1);
      }
    }
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO event_tag (event_id, tag) VALUES (?, ?)")) {
      insert.setLong(1, ordering);
      insert.setString(2, tag);
      insert.executeUpdate();
    }
    return ordering;
  }

  private static long ordering(String event) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select = connection.prepareStatement("SELECT ordering FROM event_journal WHERE event_payload = ?")) {
      select.setBytes(1, event.getBytes(StandardCharsets.UTF_8));
      try (ResultSet result = select.executeQuery()) {
        result.next();
        return result.getLong(1);
      }
    }
  }
}
