package dev.colloquy.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.pekko.persistence.jdbc.config.JournalConfig;
import org.apache.pekko.persistence.jdbc.journal.dao.DefaultJournalDao;
import org.apache.pekko.persistence.jdbc.journal.dao.JournalTables.JournalPekkoSerializationRow;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.stream.Materializer;
import scala.Tuple2;
import scala.collection.immutable.Set;
import scala.concurrent.ExecutionContext;
import scala.concurrent.Future;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;
import slick.dbio.DBIOAction;
import slick.jdbc.JdbcBackend;
import slick.jdbc.JdbcProfile;
import slick.jdbc.SimpleJdbcAction;

/**
 * The journal's writes as pekko-persistence-jdbc makes them, but each batch in one statement. The
 * plugin gathers the events that entities persist at the same time into a batch and writes it as a
 * transaction of three round trips to the database: the events (returning their orderings), their
 * tags, and the commit. Here the events and their tags are one {@code INSERT}, whose tags take the
 * orderings its events were given, sent as arrays of the batch's columns: one round trip, committed
 * on its own (one statement is one transaction), and one statement text whatever the batch's size,
 * so the database plans it once per connection. Same rows, same order (the plugin's: by sequence
 * number), same all-or-nothing batch.
 *
 * <p>The table and column names are those of the journal's migration (V1), not the plugin's
 * configurable ones. Set as {@code jdbc-journal.dao}; the plugin builds it by reflection with exactly
 * this constructor. Everything but the writes (replays, deletes, the highest sequence number) is the
 * plugin's.
 */
public class SingleStatementJournalDao extends DefaultJournalDao {

  static final String WRITE = """
      WITH events AS (
        INSERT INTO event_journal (deleted, persistence_id, sequence_number, writer, write_timestamp,
          adapter_manifest, event_payload, event_ser_id, event_ser_manifest, meta_payload, meta_ser_id,
          meta_ser_manifest)
        SELECT deleted, persistence_id, sequence_number, writer, write_timestamp, adapter_manifest,
          event_payload, event_ser_id, event_ser_manifest, meta_payload, meta_ser_id, meta_ser_manifest
        FROM unnest(?::boolean[], ?::varchar[], ?::bigint[], ?::varchar[], ?::bigint[], ?::varchar[],
            ?::bytea[], ?::integer[], ?::varchar[], ?::bytea[], ?::integer[], ?::varchar[])
          WITH ORDINALITY AS e(deleted, persistence_id, sequence_number, writer, write_timestamp,
            adapter_manifest, event_payload, event_ser_id, event_ser_manifest, meta_payload, meta_ser_id,
            meta_ser_manifest, position)
        ORDER BY position
        RETURNING ordering, persistence_id, sequence_number)
      INSERT INTO event_tag (event_id, tag)
      SELECT events.ordering, tags.tag
      FROM unnest(?::varchar[], ?::bigint[], ?::varchar[]) AS tags(persistence_id, sequence_number, tag)
      JOIN events USING (persistence_id, sequence_number)""";

  public SingleStatementJournalDao(JdbcBackend.JdbcDatabaseDef db, JdbcProfile profile, JournalConfig config,
      Serialization serialization, ExecutionContext ec, Materializer mat) {
    super(db, profile, config, serialization, ec, mat);
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Future<BoxedUnit> writeJournalRows(
      scala.collection.immutable.Seq<Tuple2<JournalPekkoSerializationRow, Set<String>>> batch) {
    List<Tuple2<JournalPekkoSerializationRow, Set<String>>> events = new ArrayList<>(CollectionConverters.asJava(batch));
    // The plugin's order (a stable sort by sequence number), so orderings are given as it gives them.
    events.sort(Comparator.comparingLong(event -> event._1().sequenceNumber()));
    // Run as the plugin runs its own writes: on the database's executor, with a connection of its pool.
    DBIOAction write = SimpleJdbcAction.apply(context -> {
      try {
        write(context.connection(), events);
      } catch (SQLException e) {
        throw new IllegalStateException("a batch of " + events.size() + " events could not be written", e);
      }
      return BoxedUnit.UNIT;
    });
    return (Future<BoxedUnit>) db().run(write);
  }

  static void write(Connection connection, List<Tuple2<JournalPekkoSerializationRow, Set<String>>> events)
      throws SQLException {
    int count = events.size();
    Boolean[] deleted = new Boolean[count];
    String[] persistenceIds = new String[count];
    Long[] sequenceNumbers = new Long[count];
    String[] writers = new String[count];
    Long[] timestamps = new Long[count];
    String[] adapterManifests = new String[count];
    byte[][] payloads = new byte[count][];
    Integer[] serializerIds = new Integer[count];
    String[] manifests = new String[count];
    byte[][] metaPayloads = new byte[count][];
    Integer[] metaSerializerIds = new Integer[count];
    String[] metaManifests = new String[count];
    List<String> tagPersistenceIds = new ArrayList<>();
    List<Long> tagSequenceNumbers = new ArrayList<>();
    List<String> tags = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      JournalPekkoSerializationRow row = events.get(i)._1();
      deleted[i] = row.deleted();
      persistenceIds[i] = row.persistenceId();
      sequenceNumbers[i] = row.sequenceNumber();
      writers[i] = row.writer();
      timestamps[i] = row.writeTimestamp();
      adapterManifests[i] = row.adapterManifest();
      payloads[i] = row.eventPayload();
      serializerIds[i] = row.eventSerId();
      manifests[i] = row.eventSerManifest();
      metaPayloads[i] = row.metaPayload().getOrElse(() -> null);
      metaSerializerIds[i] = (Integer) row.metaSerId().getOrElse(() -> null);
      metaManifests[i] = row.metaSerManifest().getOrElse(() -> null);
      for (String tag : CollectionConverters.asJava(events.get(i)._2())) {
        tagPersistenceIds.add(row.persistenceId());
        tagSequenceNumbers.add(row.sequenceNumber());
        tags.add(tag);
      }
    }
    // In the order of the statement's parameters.
    Object[] parameters = {deleted, persistenceIds, sequenceNumbers, writers, timestamps, adapterManifests, payloads,
        serializerIds, manifests, metaPayloads, metaSerializerIds, metaManifests,
        tagPersistenceIds.toArray(String[]::new), tagSequenceNumbers.toArray(Long[]::new), tags.toArray(String[]::new)};
    try (PreparedStatement statement = connection.prepareStatement(WRITE)) {
      // Java arrays go to the driver as they are: it encodes them in binary with the array types it
      // knows for them, where createArrayOf would look each type up by name under its cache's lock.
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      statement.executeUpdate();
    }
  }
}
