package dev.colloquy.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The journal's writes as the node configures them (each batch of events and their tags in one
 * statement), through the real plugin and entities: every event once with exactly its tags, in
 * sequence order, replayed and read by tag as written; and a batch is written whole or not at all.
 */
class SingleStatementJournalDaoTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static JournalDatabase database;
  private static ActorTestKit testKit;
  private static JdbcReadJournal readJournal;

  @BeforeAll
  static void start() throws Exception {
    database = JournalDatabase.start("journal-writes", ConfigFactory.empty());
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
  void theJournalIsConfiguredWithThisDao() {
    assertThat(testKit.system().settings().config().getString("jdbc-journal.dao"))
        .isEqualTo(SingleStatementJournalDao.class.getName());
  }

  @Test
  void concurrentWritersEventsAreWrittenOnceWithExactlyTheirTagsInOrderAndReadBack() throws Exception {
    int writers = 20;
    int rounds = 5;
    List<ActorRef<Command>> refs = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      refs.add(testKit.spawn(writer("w" + w)));
    }
    // Every writer persists at once, round after round, so the journal gathers many writers' events a batch.
    TestProbe<Done> done = testKit.createTestProbe();
    for (int round = 1; round <= rounds; round++) {
      for (int w = 0; w < writers; w++) {
        refs.get(w).tell(new Persist(List.of(event(w, round)), done.getRef()));
      }
      for (int w = 0; w < writers; w++) {
        done.expectMessage(WAIT, Done.getInstance());
      }
    }
    // And one write of three events at once.
    refs.getFirst().tell(new Persist(List.of("w0-6|", "w0-7|b", "w0-8|a,b"), done.getRef()));
    done.expectMessage(WAIT, Done.getInstance());

    Map<String, List<long[]>> rowsByWriter = new TreeMap<>();
    Map<String, Set<String>> tagsByEvent = new TreeMap<>();
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("""
            SELECT j.persistence_id, j.sequence_number, j.ordering, convert_from(j.event_payload, 'UTF8'), t.tag
            FROM event_journal j LEFT JOIN event_tag t ON t.event_id = j.ordering ORDER BY j.ordering, t.tag""")) {
      while (rows.next()) {
        String event = rows.getString(4);
        Set<String> tags = tagsByEvent.computeIfAbsent(event, key -> new HashSet<>());
        if (rows.getString(5) != null) {
          tags.add(rows.getString(5));
        } else {
          assertThat(tags).as("an untagged event has one row").isEmpty();
        }
        List<long[]> writerRows = rowsByWriter.computeIfAbsent(rows.getString(1), key -> new ArrayList<>());
        if (writerRows.isEmpty() || writerRows.getLast()[0] != rows.getLong(2)) {
          writerRows.add(new long[] {rows.getLong(2), rows.getLong(3)});
        }
      }
    }
    assertThat(tagsByEvent).hasSize(writers * rounds + 3);
    tagsByEvent.forEach((event, tags) -> assertThat(tags).as(event).isEqualTo(tagsOf(event)));
    assertThat(rowsByWriter).hasSize(writers);
    rowsByWriter.forEach((writer, rows) -> {
      // In the journal's order, each writer's events by sequence number 1, 2, 3 …
      assertThat(rows.stream().mapToLong(row -> row[0]).toArray()).as(writer)
          .isEqualTo(java.util.stream.LongStream.rangeClosed(1, rows.size()).toArray());
    });

    assertThat(eventsByTag("b")).containsExactlyElementsOf(expectedInOrder(rowsByWriter, tagsByEvent, "b"));
    assertThat(eventsByTag("a")).containsExactlyElementsOf(expectedInOrder(rowsByWriter, tagsByEvent, "a"));

    // A writer started again recovers its events from the journal, in order.
    TestProbe<List<String>> state = testKit.createTestProbe();
    testKit.stop(refs.getFirst());
    ActorRef<Command> again = testKit.spawn(writer("w0"));
    again.tell(new GetState(state.getRef()));
    assertThat(state.expectMessageClass(List.class, WAIT)).containsExactly("w0-1|" + tagList(0, 1), "w0-2|"
        + tagList(0, 2), "w0-3|" + tagList(0, 3), "w0-4|" + tagList(0, 4), "w0-5|" + tagList(0, 5), "w0-6|",
        "w0-7|b", "w0-8|a,b");
  }

  @Test
  void aWriteThatFailsLeavesNoneOfItsEventsNorTheirTags() throws Exception {
    ActorRef<Command> writer = testKit.spawn(writer("x"));
    TestProbe<List<String>> state = testKit.createTestProbe();
    writer.tell(new GetState(state.getRef()));
    assertThat(state.expectMessageClass(List.class, WAIT)).isEmpty();
    // Sequence number 2 taken behind the writer's back: its write of 1 and 2 together must fail whole.
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement("""
            INSERT INTO event_journal (persistence_id, sequence_number, deleted, writer, write_timestamp,
              event_ser_id, event_ser_manifest, event_payload) VALUES ('Writer|x', 2, false, 'other', 0, 20, '', ?)""")) {
      insert.setBytes(1, "taken".getBytes(StandardCharsets.UTF_8));
      insert.executeUpdate();
    }
    TestProbe<Done> done = testKit.createTestProbe();
    writer.tell(new Persist(List.of("x-1|a", "x-2|a"), done.getRef()));
    done.expectTerminated(writer, WAIT);

    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("""
            SELECT (SELECT count(*) FROM event_journal), (SELECT count(*) FROM event_tag)""")) {
      rows.next();
      assertThat(rows.getLong(1)).as("only the row taken behind its back").isOne();
      assertThat(rows.getLong(2)).as("no tag of the failed write").isZero();
    }
  }

  private static String event(int writer, int round) {
    return "w" + writer + "-" + round + "|" + tagList(writer, round);
  }

  /** Some events untagged, some with one tag, some with two. */
  private static String tagList(int writer, int round) {
    return switch ((writer + round) % 3) {
      case 0 -> "";
      case 1 -> "a";
      default -> "a,b";
    };
  }

  private static Set<String> tagsOf(String event) {
    String list = event.substring(event.indexOf('|') + 1);
    return list.isEmpty() ? Set.of() : new HashSet<>(Arrays.asList(list.split(",")));
  }

  private static List<String> expectedInOrder(Map<String, List<long[]>> rowsByWriter, Map<String, Set<String>> tagsByEvent,
      String tag) throws SQLException {
    List<String> events = new ArrayList<>();
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(
            "SELECT convert_from(event_payload, 'UTF8') FROM event_journal ORDER BY ordering")) {
      while (rows.next()) {
        if (tagsByEvent.get(rows.getString(1)).contains(tag)) {
          events.add(rows.getString(1));
        }
      }
    }
    return events;
  }

  private static List<String> eventsByTag(String tag) {
    return readJournal.currentEventsByTag(tag, Offset.noOffset()).runWith(Sink.seq(), testKit.system())
        .toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join().stream()
        .map(envelope -> (String) ((EventEnvelope) envelope).event()).toList();
  }

  sealed interface Command {}

  record Persist(List<String> events, ActorRef<Done> replyTo) implements Command {}

  record GetState(ActorRef<List<String>> replyTo) implements Command {}

  /** Persists strings (Pekko's own serializer), each tagged as its text after the bar says. */
  private static Behavior<Command> writer(String name) {
    return new EventSourcedBehavior<Command, String, List<String>>(PersistenceId.of("Writer", name)) {
      @Override
      public List<String> emptyState() {
        return List.of();
      }

      @Override
      public Set<String> tagsFor(String event) {
        return tagsOf(event);
      }

      @Override
      public CommandHandler<Command, String, List<String>> commandHandler() {
        return (state, command) -> switch (command) {
          case Persist persist -> Effect().persist(persist.events()).thenReply(persist.replyTo(), after -> Done.getInstance());
          case GetState get -> Effect().reply(get.replyTo(), state);
        };
      }

      @Override
      public EventHandler<List<String>, String> eventHandler() {
        return (state, event) -> {
          List<String> next = new ArrayList<>(state);
          next.add(event);
          return next;
        };
      }
    };
  }
}
