package dev.colloquy.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.OpeningEvents;
import dev.colloquy.engine.session.SessionView;
import dev.colloquy.http.auth.Principal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code POST /v1/sessions/{id}/fork} and {@code POST /v1/sessions/import}: new sessions that start
 * from an existing session's turns, or from another installation's exported journal, for developers
 * who re-run a turn another way and compare. Both belong to the caller's tenant and user.
 */
final class ForkRoutes extends AllDirectives {

  /**
   * A fork or import brings its events to the new session's node before journaling them (see
   * {@link OpeningEvents}): it may wait for that transfer, which gives up well before this.
   */
  private static final Duration OPENING_TIMEOUT = OpeningEvents.TRANSFER_TIMEOUT.plusSeconds(30);

  private final SessionGateway sessions;

  ForkRoutes(SessionGateway sessions) {
    this.sessions = sessions;
  }

  Route fork(Principal caller, String sessionId, String body) {
    int atTurn = atTurn(RequestBodies.parse(body, false));
    return onSuccess(forkSource(caller, sessionId, atTurn).thenCompose(source -> openFork(source)
            .thenApply(view -> Forked.toApi(view, source))),
        forked -> complete(Json.response(StatusCodes.CREATED, forked)));
  }

  /** The body is an export's JSON Lines as {@code GET /v1/sessions/{id}/export} wrote them. */
  Route importJournal(Principal caller, String body) {
    List<ChatSession.Event> journal = JournalLines.events(JournalLines.parse(body));
    String importedFrom = ((ChatSession.SessionOpened) journal.getFirst()).sessionId();
    return onSuccess(importAs(caller, journal),
        view -> complete(Json.response(StatusCodes.CREATED, new Imported(view.sessionId(), importedFrom, journal.size()))));
  }

  private static int atTurn(JsonNode body) {
    JsonNode atTurn = body.path("at_turn");
    if (atTurn.isMissingNode() || atTurn.isNull()) {
      throw new ApiException(ErrorCode.FIELD_REQUIRED, "The field at_turn is required: the turn the fork runs again (1 for none kept)");
    }
    if (!atTurn.canConvertToInt() || !atTurn.isIntegralNumber()) {
      throw new ApiException(ErrorCode.INVALID_FORK_POINT, "at_turn must be a whole number: the turn the fork runs again");
    }
    return atTurn.intValue();
  }

  // ---- asks ----

  private CompletionStage<ChatSession.ForkSource> forkSource(Principal caller, String sessionId, int atTurn) {
    return sessions.<ChatSession.ForkAnswer>ask(caller, sessionId, replyTo -> new ChatSession.GetForkSource(atTurn, replyTo))
        .thenApply(answer -> switch (answer) {
          case ChatSession.ForkSource source -> source;
          case ChatSession.Rejected rejected -> throw Errors.refused(rejected);
        });
  }

  private CompletionStage<SessionView> openFork(ChatSession.ForkSource source) {
    return sessions.<ChatSession.SessionAnswer>ask(UUID.randomUUID().toString(), OPENING_TIMEOUT,
        replyTo -> new ChatSession.OpenFork(source, replyTo)).thenApply(ForkRoutes::session);
  }

  private CompletionStage<SessionView> importAs(Principal caller, List<ChatSession.Event> journal) {
    OpeningEvents events = OpeningEvents.of(sessions.system(), journal);
    return sessions.<ChatSession.SessionAnswer>ask(UUID.randomUUID().toString(), OPENING_TIMEOUT,
        replyTo -> new ChatSession.Import(caller.tenantId(), caller.userId().orElse(null), events, replyTo))
        .thenApply(ForkRoutes::session);
  }

  private static SessionView session(ChatSession.SessionAnswer answer) {
    return switch (answer) {
      case ChatSession.SessionReply reply -> reply.session();
      case ChatSession.Rejected rejected -> throw Errors.refused(rejected);
    };
  }

  // ---- bodies ----

  record Forked(String sessionId, String forkedFrom, int atTurn, int inheritedTurns, String atTurnMessage,
      String createdAt) {
    static Forked toApi(SessionView view, ChatSession.ForkSource source) {
      return new Forked(view.sessionId(), source.fromSessionId(), source.atTurn(), source.inheritedTurns(),
          source.atTurnMessage(), view.createdAt().toString());
    }
  }

  record Imported(String sessionId, String importedFrom, int events) {}
}
