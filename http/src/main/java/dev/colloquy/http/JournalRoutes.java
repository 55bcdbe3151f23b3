package dev.colloquy.http;

import dev.colloquy.config.AdminSettings;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.persistence.SessionJournal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /v1/sessions/{id}/journal}: the session's journal as JSON, with the state rebuilt from
 * it, for developers. Guarded by the admin token; without one it is open in development only.
 */
public final class JournalRoutes extends AllDirectives {

  private final SessionJournal journal;
  private final AdminSettings admin;
  private final boolean production;

  public JournalRoutes(SessionJournal journal, AdminSettings admin, boolean production) {
    this.journal = journal;
    this.admin = admin;
    this.production = production;
  }

  public Route route() {
    return pathPrefix("v1", () -> pathPrefix("sessions", () -> pathPrefix(segment(), sessionId ->
        path("journal", () -> get(() -> optionalHeaderValueByName("Authorization", authorization -> {
          authorize(authorization);
          return parameterOptional("until", until -> read(SessionRoutes.validSessionId(sessionId), until));
        }))))));
  }

  private void authorize(Optional<String> authorization) {
    if (admin.token().isEmpty()) {
      if (production) {
        throw new ApiException(ErrorCode.ADMIN_DISABLED,
            "The journal endpoint needs COLLOQUY_ADMIN_TOKEN to be set in production");
      }
      return;
    }
    String expected = "Bearer " + admin.token().get();
    boolean matches = authorization.isPresent() && MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.UTF_8), authorization.get().getBytes(StandardCharsets.UTF_8));
    if (!matches) {
      throw new ApiException(ErrorCode.UNAUTHORIZED, "A valid admin bearer token is required");
    }
  }

  private Route read(String sessionId, Optional<String> until) {
    long untilSeq = until.map(JournalRoutes::sequenceNr).orElse(Long.MAX_VALUE);
    var entries = journal.read(sessionId, untilSeq).exceptionally(error -> {
      throw new ApiException(ErrorCode.JOURNAL_UNAVAILABLE,
          "The journal cannot be read right now; try again");
    });
    return onSuccess(entries, read -> {
      if (read.isEmpty()) {
        throw new ApiException(ErrorCode.SESSION_NOT_FOUND, "Session not found");
      }
      return complete(Json.response(StatusCodes.OK, JournalJson.toApi(sessionId, read)));
    });
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
