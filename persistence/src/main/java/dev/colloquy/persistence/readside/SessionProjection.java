package dev.colloquy.persistence.readside;

import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionTags;
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
import org.apache.pekko.projection.javadsl.ExactlyOnceProjection;
import org.apache.pekko.projection.jdbc.javadsl.JdbcHandler;
import org.apache.pekko.projection.jdbc.javadsl.JdbcProjection;
import org.apache.pekko.persistence.query.Offset;

/**
 * Keeps the read tables (sessions, their usage, messages, billing records) in step with the
 * journal: one exactly-once JDBC projection per session tag, spread over the cluster as a sharded
 * daemon process. Each event's changes and the projection's offset commit in one transaction; a
 * deletion also purges the session's journal in it (see {@link DeletedJournalPurge}).
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

  static ExactlyOnceProjection<Offset, EventEnvelope<ChatSession.Event>> projection(
      ActorSystem<?> system, DataSource dataSource, String tag) {
    return JdbcProjection.exactlyOnce(
        ProjectionId.of(ReadSide.PROJECTION_NAME, tag),
        EventSourcedProvider.<ChatSession.Event>eventsByTag(system, JdbcReadJournal.Identifier(), tag),
        () -> new DataSourceJdbcSession(dataSource),
        Handler::new,
        system);
  }

  private static final class Handler extends JdbcHandler<EventEnvelope<ChatSession.Event>, DataSourceJdbcSession> {
    @Override
    public void process(DataSourceJdbcSession session, EventEnvelope<ChatSession.Event> envelope) throws Exception {
      String sessionId = PersistenceId.extractEntityId(envelope.persistenceId());
      session.withConnection(connection -> {
        new ReadModelUpdates(connection, sessionId).apply(envelope.event());
        if (envelope.event() instanceof ChatSession.SessionDeleted) {
          DeletedJournalPurge.before(connection, envelope.persistenceId(), envelope.sequenceNr());
        }
        return null;
      });
    }
  }
}
