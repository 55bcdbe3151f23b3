package dev.colloquy.persistence.readside;

import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionTags;
import java.util.List;
import javax.sql.DataSource;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.ShardedDaemonProcessSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ShardedDaemonProcess;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.projection.ProjectionBehavior;
import org.apache.pekko.projection.ProjectionId;
import org.apache.pekko.projection.eventsourced.EventEnvelope;
import org.apache.pekko.projection.eventsourced.javadsl.EventSourcedProvider;
import org.apache.pekko.projection.javadsl.GroupedProjection;
import org.apache.pekko.projection.jdbc.javadsl.JdbcHandler;
import org.apache.pekko.projection.jdbc.javadsl.JdbcProjection;
import org.apache.pekko.persistence.query.Offset;

/**
 * Keeps the read tables (sessions, their usage, messages, billing records) in step with the
 * journal: one exactly-once JDBC projection per session tag, spread over the cluster as a sharded
 * daemon process. The events that arrive together (up to {@code pekko.projection.grouped}'s bounds)
 * are applied in order and commit with the projection's offset in one transaction: exactly once, as
 * with a transaction per event, but one commit for a batch instead of three or four per turn. A
 * deletion also purges the session's journal in that transaction (see {@link DeletedJournalPurge}).
 */
public final class SessionProjection {

  private SessionProjection() {}

  /**
   * Recreates the read tables if they were dropped and, when the projection starts from the
   * beginning, tags older untagged events; then starts the projection instances.
   */
  public static void init(ActorSystem<?> system, DataSource dataSource) {
    ReadSide.repairIfDropped(dataSource);
    ReadSide.tagUntaggedSessionEvents(dataSource);
    ShardedDaemonProcess.get(system).init(ProjectionBehavior.Command.class, ReadSide.PROJECTION_NAME,
        SessionTags.COUNT, index -> ProjectionBehavior.create(projection(system, dataSource, SessionTags.all().get(index))),
        ShardedDaemonProcessSettings.create(system), java.util.Optional.of(ProjectionBehavior.stopMessage()));
  }

  static GroupedProjection<Offset, EventEnvelope<ChatSession.Event>> projection(
      ActorSystem<?> system, DataSource dataSource, String tag) {
    return JdbcProjection.groupedWithin(
        ProjectionId.of(ReadSide.PROJECTION_NAME, tag),
        EventSourcedProvider.<ChatSession.Event>eventsByTag(system, JdbcReadJournal.Identifier(), tag),
        () -> new DataSourceJdbcSession(dataSource),
        Handler::new,
        system);
  }

  private static final class Handler
      extends JdbcHandler<List<EventEnvelope<ChatSession.Event>>, DataSourceJdbcSession> {
    @Override
    public void process(DataSourceJdbcSession session, List<EventEnvelope<ChatSession.Event>> envelopes)
        throws Exception {
      session.withConnection(connection -> {
        for (EventEnvelope<ChatSession.Event> envelope : envelopes) {
          String sessionId = PersistenceId.extractEntityId(envelope.persistenceId());
          new ReadModelUpdates(connection, sessionId).apply(envelope.event());
          if (envelope.event() instanceof ChatSession.SessionDeleted) {
            DeletedJournalPurge.before(connection, envelope.persistenceId(), envelope.sequenceNr());
          }
        }
        return null;
      });
    }
  }
}
