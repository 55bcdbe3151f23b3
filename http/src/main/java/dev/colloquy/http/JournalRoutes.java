package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionOwner;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.persistence.JournalEntry;
import dev.colloquy.persistence.SessionJournal;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /v1/sessions/{id}/journal}: the session's journal as JSON, with the state rebuilt from
 * it, for developers of the session's tenant. Another tenant's session answers as a missing one.
 */
public final class JournalRoutes extends AllDirectives {

  private final SessionJournal journal;

  public JournalRoutes(SessionJournal journal) {
    this.journal = journal;
  }

  public Route route(Principal principal) {
    return pathPrefix("v1", () -> pathPrefix("sessions", () -> pathPrefix(segment(), sessionId ->
        path("journal", () -> get(() -> parameterOptional("until", until ->
            read(principal, SessionRoutes.validSessionId(sessionId), until)))))));
  }

  private Route read(Principal caller, String sessionId, Optional<String> until) {
    long untilSeq = until.map(JournalRoutes::sequenceNr).orElse(Long.MAX_VALUE);
    var entries = journal.read(sessionId, untilSeq).exceptionally(error -> {
      throw new ApiException(ErrorCode.JOURNAL_UNAVAILABLE,
          "The journal cannot be read right now; try again");
    });
    return onSuccess(entries, read -> {
      if (read.isEmpty() || !reachable(caller, read)) {
        throw new ApiException(ErrorCode.SESSION_NOT_FOUND, "Session not found");
      }
      return complete(Json.response(StatusCodes.OK, JournalJson.toApi(sessionId, read)));
    });
  }

  /**
   * A session's tenant and user are in its first event; a journal without one (purged to a
   * tombstone) belongs to no one.
   */
  private static boolean reachable(Principal caller, List<JournalEntry> entries) {
    return entries.stream()
        .map(JournalEntry::event)
        .filter(ChatSession.SessionOpened.class::isInstance)
        .map(ChatSession.SessionOpened.class::cast)
        .findFirst()
        .map(opened -> new SessionOwner(opened.tenantId(), opened.userId())
            .reachableBy(caller.tenantId(), caller.userId().orElse(null)))
        .orElse(false);
  }

  private static long sequenceNr(String value) {
    try {
      long seq = Long.parseLong(value);
      if (seq > 0) {
        return seq;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new ApiException(ErrorCode.INVALID_SEQUENCE_NR, "until must be a positive sequence number");
  }
}
