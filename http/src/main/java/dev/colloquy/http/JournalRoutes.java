package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionOwner;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.persistence.JournalEntry;
import dev.colloquy.persistence.SessionJournal;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /v1/sessions/{id}/journal}: the session's journal as JSON, with the state rebuilt from
 * it, for developers: the operator (admin token) reads any session's, a tenant's credential only its
 * own tenant's (a user's, only that user's). Another tenant's session answers as a missing one.
 */
public final class JournalRoutes extends AllDirectives {

  private final SessionJournal journal;

  public JournalRoutes(SessionJournal journal) {
    this.journal = journal;
  }

  /** The journal of a session the caller owns. */
  public Route route(Principal principal) {
    return route(owner -> owner.reachableBy(principal.tenantId(), principal.userId().orElse(null)));
  }

  /** The journal of any tenant's session, for the operator. */
  public Route operatorRoute() {
    return route(owner -> true);
  }

  private Route route(Predicate<SessionOwner> reachable) {
    return pathPrefix("v1", () -> pathPrefix("sessions", () -> pathPrefix(segment(), sessionId ->
        path("journal", () -> get(() -> parameterOptional("until", until ->
            read(reachable, SessionRoutes.validSessionId(sessionId), until)))))));
  }

  private Route read(Predicate<SessionOwner> reachable, String sessionId, Optional<String> until) {
    long untilSeq = until.map(JournalRoutes::sequenceNr).orElse(Long.MAX_VALUE);
    var entries = journal.read(sessionId, untilSeq).exceptionally(error -> {
      throw new ApiException(ErrorCode.JOURNAL_UNAVAILABLE,
          "The journal cannot be read right now; try again");
    });
    return onSuccess(entries, read -> {
      if (read.isEmpty() || !owner(read).map(reachable::test).orElse(false)) {
        throw new ApiException(ErrorCode.SESSION_NOT_FOUND, "Session not found");
      }
      return complete(Json.response(StatusCodes.OK, JournalJson.toApi(sessionId, read)));
    });
  }

  /**
   * A session's tenant and user are in its first event; a journal without one (purged to a
   * tombstone) belongs to no one, and no one reads it.
   */
  private static Optional<SessionOwner> owner(List<JournalEntry> entries) {
    return entries.stream()
        .map(JournalEntry::event)
        .filter(ChatSession.SessionOpened.class::isInstance)
        .map(ChatSession.SessionOpened.class::cast)
        .findFirst()
        .map(opened -> new SessionOwner(opened.tenantId(), opened.userId()));
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
