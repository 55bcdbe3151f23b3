package dev.colloquy.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.jdbc.PekkoSerialization;
import org.apache.pekko.persistence.jdbc.config.ReadJournalConfig;
import org.apache.pekko.persistence.jdbc.journal.dao.JournalTables.JournalPekkoSerializationRow;
import org.apache.pekko.persistence.jdbc.query.dao.DefaultReadJournalDao;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import scala.Option;
import scala.Tuple3;
import scala.concurrent.ExecutionContext;
import scala.jdk.javaapi.FutureConverters;
import scala.util.Try;
import slick.dbio.DBIOAction;
import slick.jdbc.JdbcBackend;
import slick.jdbc.JdbcProfile;
import slick.jdbc.SimpleJdbcAction;

/**
 * The read journal's queries as pekko-persistence-jdbc makes them, but for events by tag, which puts
 * the offset range on the tag's rows. The plugin's query puts the range on the journal's
 * {@code ordering} and joins the tags by equality; PostgreSQL does not carry a range through the
 * join, so each projection instance read every event in the range, payload and all, to keep those of
 * its tag (four instances: every event read four times; bench/RESULTS.md, "where PostgreSQL's time
 * per turn goes"). Here the range and the tag are both on {@code event_tag}'s rows, so an instance
 * reads its tag's events and, of the others, only their small tag rows. Same rows, same order, same
 * limit: events after {@code offset} up to {@code maxOffset}, not deleted, by ordering.
 *
 * <p>The table and column names are those of the journal's migration (V1), not the plugin's
 * configurable ones. Set as {@code jdbc-read-journal.dao}; the plugin builds it by reflection with
 * exactly this constructor.
 */
public class TagRangeReadJournalDao extends DefaultReadJournalDao {

  static final String EVENTS_BY_TAG = """
      SELECT j.ordering, j.deleted, j.persistence_id, j.sequence_number, j.writer, j.write_timestamp,
        j.adapter_manifest, j.event_payload, j.event_ser_id, j.event_ser_manifest, j.meta_payload,
        j.meta_ser_id, j.meta_ser_manifest
      FROM event_tag t JOIN event_journal j ON j.ordering = t.event_id
      WHERE t.tag = ? AND t.event_id > ? AND t.event_id <= ? AND NOT j.deleted
      ORDER BY t.event_id
      LIMIT ?""";

  /** Like the plugin's query, this leaves the envelopes' tags empty: nothing reads them. */
  private static final scala.collection.immutable.Set<String> NO_TAGS =
      scala.collection.immutable.Set$.MODULE$.<String>empty();

  private final Serialization serialization;

  public TagRangeReadJournalDao(JdbcBackend.JdbcDatabaseDef db, JdbcProfile profile, ReadJournalConfig config,
      Serialization serialization, ExecutionContext ec, Materializer mat) {
    super(db, profile, config, serialization, ec, mat);
    this.serialization = serialization;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public org.apache.pekko.stream.scaladsl.Source<Try<Tuple3<PersistentRepr, scala.collection.immutable.Set<String>, Object>>, NotUsed> eventsByTag(
      String tag, long offset, long maxOffset, long max) {
    // Run as the plugin runs its own queries: on the database's executor, with a connection of its pool.
    DBIOAction read = SimpleJdbcAction.apply(context -> rows(context.connection(), tag, offset, maxOffset, max));
    scala.concurrent.Future<List<JournalPekkoSerializationRow>> rows = db().run(read);
    return Source.completionStage(FutureConverters.asJava(rows))
        .mapConcat(list -> list)
        .map(this::deserialized)
        .asScala();
  }

  private Try<Tuple3<PersistentRepr, scala.collection.immutable.Set<String>, Object>> deserialized(
      JournalPekkoSerializationRow row) {
    return PekkoSerialization.fromRow(serialization, row)
        .map(read -> new Tuple3<>(read._1(), NO_TAGS, read._2()));
  }

  private static List<JournalPekkoSerializationRow> rows(Connection connection, String tag, long offset,
      long maxOffset, long max) {
    try (PreparedStatement statement = connection.prepareStatement(EVENTS_BY_TAG)) {
      statement.setString(1, tag);
      statement.setLong(2, offset);
      statement.setLong(3, maxOffset);
      statement.setLong(4, max);
      List<JournalPekkoSerializationRow> rows = new ArrayList<>();
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          rows.add(row(result));
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("events by tag " + tag + " after " + offset + " could not be read", e);
    }
  }

  private static JournalPekkoSerializationRow row(ResultSet result) throws SQLException {
    int metaSerId = result.getInt("meta_ser_id");
    Option<Object> metaSerIdOrNone = result.wasNull() ? Option.empty() : Option.apply(metaSerId);
    return new JournalPekkoSerializationRow(
        result.getLong("ordering"),
        result.getBoolean("deleted"),
        result.getString("persistence_id"),
        result.getLong("sequence_number"),
        result.getString("writer"),
        result.getLong("write_timestamp"),
        result.getString("adapter_manifest"),
        result.getBytes("event_payload"),
        result.getInt("event_ser_id"),
        result.getString("event_ser_manifest"),
        Option.apply(result.getBytes("meta_payload")),
        metaSerIdOrNone,
        Option.apply(result.getString("meta_ser_manifest")));
  }
}
