package dev.colloquy.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.persistence.readside.SessionCursor;
import dev.colloquy.persistence.readside.SessionListing;
import dev.colloquy.persistence.readside.SessionPage;
import dev.colloquy.persistence.readside.SessionRow;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /v1/sessions}: the tenant's sessions from the read side, most recently active first,
 * a page at a time. The list may lag the sessions themselves by a moment.
 */
public final class SessionListRoutes extends AllDirectives {

  static final int DEFAULT_LIMIT = 20;
  static final int MAX_LIMIT = 100;
  private static final String INVALID_QUERY = "INVALID_QUERY";

  private final SessionListing listing;

  public SessionListRoutes(SessionListing listing) {
    this.listing = listing;
  }

  public Route route(Principal principal) {
    return pathPrefix("v1", () -> path("sessions", () -> get(() ->
        parameterOptional("status", status -> parameterOptional("limit", limit -> parameterOptional("cursor", cursor ->
            onSuccess(list(principal.tenantId(), status, limit, cursor), page -> json(pageJson(page)))))))));
  }

  private CompletionStage<SessionPage> list(String tenantId, Optional<String> status, Optional<String> limit,
      Optional<String> cursor) {
    Optional<String> validStatus = status.map(SessionListRoutes::status);
    int validLimit = limit.map(SessionListRoutes::limit).orElse(DEFAULT_LIMIT);
    Optional<SessionCursor> after = cursor.map(SessionListRoutes::cursor);
    return listing.list(tenantId, validStatus, validLimit, after).exceptionally(error -> {
      throw new ApiException(StatusCodes.SERVICE_UNAVAILABLE, "SESSION_LIST_UNAVAILABLE",
          "The session list cannot be read right now; try again");
    });
  }

  private static String status(String value) {
    if (!SessionListing.STATUSES.contains(value)) {
      throw invalid("status must be one of " + SessionListing.STATUSES);
    }
    return value;
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
    return new ApiException(StatusCodes.BAD_REQUEST, INVALID_QUERY, message);
  }

  private static ObjectNode pageJson(SessionPage page) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    ArrayNode sessions = body.putArray("sessions");
    for (SessionRow row : page.sessions()) {
      ObjectNode session = sessions.addObject()
          .put("session_id", row.sessionId())
          .put("status", row.status())
          .put("title", row.title())
          .put("created_at", text(row.createdAt()))
          .put("last_activity_at", text(row.lastActivityAt()))
          .put("closed_at", text(row.closedAt()))
          .put("close_reason", row.closeReason())
          .put("turn_count", row.turnCount());
      session.putObject("usage")
          .put("prompt_tokens", row.promptTokens())
          .put("completion_tokens", row.completionTokens())
          .put("total_tokens", row.promptTokens() + row.completionTokens())
          .put("cost_usd", row.costUsd());
    }
    body.put("next_cursor", page.next().map(SessionCursor::encode).orElse(null));
    return body;
  }

  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }

  private Route json(ObjectNode body) {
    return complete(HttpResponse.create().withStatus(StatusCodes.OK)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString())));
  }
}
