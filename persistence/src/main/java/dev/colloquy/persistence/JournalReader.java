package dev.colloquy.persistence;

import dev.colloquy.engine.session.ChatSession;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.javadsl.Sink;

/** Reads a session's journal from the JDBC read journal, as it is in the database now. */
public final class JournalReader implements SessionJournal {

  private final ActorSystem<?> system;
  private final JdbcReadJournal readJournal;

  public JournalReader(ActorSystem<?> system) {
    this.system = system;
    this.readJournal =
        PersistenceQuery.get(system).getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
  }

  @Override
  public CompletionStage<List<JournalEntry>> read(String sessionId, long untilSequenceNr) {
    return readJournal
        .currentEventsByPersistenceId(ChatSession.persistenceId(sessionId).id(), 0, untilSequenceNr)
        .map(envelope -> new JournalEntry(envelope.sequenceNr(), Instant.ofEpochMilli(envelope.timestamp()),
            (ChatSession.Event) envelope.event()))
        .runWith(Sink.seq(), system);
  }
}
