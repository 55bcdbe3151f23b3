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
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /v1/sessions/{id}/journal}: the session's journal as JSON, with the state rebuilt from
 * it, and {@code GET /v1/sessions/{id}/export}: the same events as JSON Lines, for developers: the operator (admin token) reads any session's, a tenant's credential only its
 * own tenant's (a user's, only that user's). Another tenant's session answers as a missing one.
 */
public final class JournalRoutes extends AllDirectives {

  private static final ContentType.WithFixedCharset JSON_LINES =
      ContentTypes.create(MediaTypes.applicationWithFixedCharset("x-ndjson", HttpCharsets.UTF_8));

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
        concat(
            path("journal", () -> get(() -> parameterOptional("until", until ->
                read(reachable, SessionRoutes.validSessionId(sessionId), until)))),
            path("export", () -> get(() -> export(reachable, SessionRoutes.validSessionId(sessionId))))))));
  }

  /** The journal as JSON Lines, the format {@code POST /v1/sessions/import} reads. */
  private Route export(Predicate<SessionOwner> reachable, String sessionId) {
    return onSuccess(owned(reachable, sessionId, Long.MAX_VALUE), read -> {
      StringBuilder lines = new StringBuilder();
      read.forEach(entry -> lines.append(JournalLines.line(entry)).append('\n'));
      return complete(HttpResponse.create().withStatus(StatusCodes.OK)
          .withEntity(HttpEntities.create(JSON_LINES, lines.toString())));
    });
  }

  private Route read(Predicate<SessionOwner> reachable, String sessionId, Optional<String> until) {
    long untilSeq = until.map(JournalRoutes::sequenceNr).orElse(Long.MAX_VALUE);
    return onSuccess(owned(reachable, sessionId, untilSeq),
        read -> complete(Json.response(StatusCodes.OK, JournalJson.toApi(sessionId, read))));
  }

  /** The journal of a session the caller may read; any other answers as a missing one. */
  private CompletionStage<List<JournalEntry>> owned(Predicate<SessionOwner> reachable, String sessionId, long untilSeq) {
    return journal.read(sessionId, untilSeq).exceptionally(error -> {
      throw new ApiException(ErrorCode.JOURNAL_UNAVAILABLE,
          "The journal cannot be read right now; try again");
    }).thenApply(read -> {
      if (read.isEmpty() || !owner(read).map(reachable::test).orElse(false)) {
        throw new ApiException(ErrorCode.SESSION_NOT_FOUND, "Session not found");
      }
      return read;
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
