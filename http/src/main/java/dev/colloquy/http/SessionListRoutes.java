package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.CanonicalEvents.UsageJson;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.persistence.readside.SessionCursor;
import dev.colloquy.persistence.readside.SessionListing;
import dev.colloquy.persistence.readside.SessionPage;
import dev.colloquy.persistence.readside.SessionRow;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /v1/sessions}: the tenant's sessions (only the user's own when the caller acts for a
 * user) from the read side, most recently active first, a page at a time, optionally only those whose
 * title contains {@code q}. The list may lag the sessions themselves by a moment.
 */
public final class SessionListRoutes extends AllDirectives {

  static final int DEFAULT_LIMIT = 20;
  static final int MAX_LIMIT = 100;
  /** A search longer than the longest title could match nothing. */
  static final int MAX_QUERY_LENGTH = 200;

  private final SessionListing listing;

  public SessionListRoutes(SessionListing listing) {
    this.listing = listing;
  }

  public Route route(Principal principal) {
    return pathPrefix("v1", () -> path("sessions", () -> get(() ->
        parameterOptional("status", status -> parameterOptional("q", q -> parameterOptional("limit", limit ->
            parameterOptional("cursor", cursor -> onSuccess(list(principal, status, q, limit, cursor),
                page -> complete(Json.response(StatusCodes.OK, Page.toApi(page)))))))))));
  }

  private CompletionStage<SessionPage> list(Principal caller, Optional<String> status, Optional<String> q,
      Optional<String> limit, Optional<String> cursor) {
    Optional<String> validStatus = status.map(SessionListRoutes::status);
    Optional<String> titleContains = q.map(SessionListRoutes::titleQuery);
    int validLimit = limit.map(SessionListRoutes::limit).orElse(DEFAULT_LIMIT);
    Optional<SessionCursor> after = cursor.map(SessionListRoutes::cursor);
    return listing.list(caller.tenantId(), caller.userId(), validStatus, titleContains, validLimit, after)
        .exceptionally(error -> {
          throw new ApiException(ErrorCode.SESSION_LIST_UNAVAILABLE,
              "The session list cannot be read right now; try again");
        });
  }

  private static String status(String value) {
    if (!SessionListing.STATUSES.contains(value)) {
      throw invalid("status must be one of " + SessionListing.STATUSES);
    }
    return value;
  }

  /** What a title must contain: the text searched for, without the spaces around it. */
  private static String titleQuery(String value) {
    String query = value.strip();
    if (query.isEmpty() || query.length() > MAX_QUERY_LENGTH) {
      throw invalid("q must be 1 to " + MAX_QUERY_LENGTH + " characters (leave it out to list every session)");
    }
    return query;
  }

  private static int limit(String value) {
    try {
      int limit = Integer.parseInt(value.strip());
      if (limit >= 1 && limit <= MAX_LIMIT) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw invalid("limit must be an integer from 1 to " + MAX_LIMIT);
  }

  private static SessionCursor cursor(String value) {
    return SessionCursor.decode(value).orElseThrow(() -> invalid("cursor is not a cursor this server returned"));
  }

  private static ApiException invalid(String message) {
    return new ApiException(ErrorCode.INVALID_QUERY, message);
  }

  record Page(List<Session> sessions, String nextCursor) {
    static Page toApi(SessionPage page) {
      return new Page(page.sessions().stream().map(Session::toApi).toList(),
          page.next().map(SessionCursor::encode).orElse(null));
    }
  }

  /** A session as the read side lists it, with what it has cost so far. */
  record Session(String sessionId, String status, String title, String createdAt, String lastActivityAt,
      String closedAt, String closeReason, int turnCount, UsageJson usage) {

    static Session toApi(SessionRow row) {
      return new Session(row.sessionId(), row.status(), row.title(), text(row.createdAt()),
          text(row.lastActivityAt()), text(row.closedAt()), row.closeReason(), row.turnCount(),
          new UsageJson(row.promptTokens(), row.completionTokens(), row.promptTokens() + row.completionTokens(),
              row.costUsd(), null));
    }
  }

  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
