package dev.colloquy.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.config.HttpSettings;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.engine.session.SessionSummary;
import dev.colloquy.engine.session.SessionView;
import dev.colloquy.engine.turn.TurnEvent;
import dev.colloquy.engine.turn.TurnFrame;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Accept;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/** The canonical session and turn API of API.md under {@code /v1/sessions}. */
public final class SessionRoutes extends AllDirectives {

  static final String CLOSED_REASON = "closed";

  /** The tenant of the sessions journaled before tenancy, and of the command-line tools' defaults. */
  public static final String DEFAULT_TENANT = "default";

  private final SessionGateway sessions;
  private final HttpSettings settings;
  private final HttpMetrics metrics;

  public SessionRoutes(SessionGateway sessions, HttpSettings settings) {
    this(sessions, settings, HttpMetrics.NONE);
  }

  public SessionRoutes(SessionGateway sessions, HttpSettings settings, HttpMetrics metrics) {
    this.sessions = sessions;
    this.settings = settings;
    this.metrics = metrics;
  }

  public Route route(String traceId, Principal principal) {
    String tenantId = principal.tenantId();
    return pathPrefix("v1", () -> pathPrefix("sessions", () -> concat(
        pathEndOrSingleSlash(() -> post(() -> body(body -> onSuccess(open(tenantId, body), this::created)))),
        pathPrefix(segment(), sessionId -> sessionRoute(validSessionId(sessionId), traceId, tenantId)))));
  }

  private Route sessionRoute(String sessionId, String traceId, String tenantId) {
    TenantSessions sessions = new TenantSessions(this.sessions, tenantId);
    return concat(
        pathEndOrSingleSlash(() -> concat(
            get(() -> onSuccess(view(sessions, sessionId), view -> json(StatusCodes.OK, sessionJson(view)))),
            delete(() -> onSuccess(delete(sessions, sessionId), done -> complete(StatusCodes.NO_CONTENT))))),
        path("close", () -> post(() -> body(body -> onSuccess(close(sessions, sessionId, body), this::closed)))),
        pathPrefix("turns", () -> concat(
            pathEndOrSingleSlash(() -> post(() -> body(body -> optionalHeaderValueByType(Accept.class, accept ->
                startTurn(sessions, sessionId, body, accept.map(SessionRoutes::wantsEvents).orElse(false), traceId))))),
            pathPrefix(segment(), turnId -> concat(
                path("events", () -> get(() -> optionalHeaderValueByName("Last-Event-ID", lastEventId ->
                    parameterOptional("last_event_id", queryId -> joinTurn(sessions, sessionId, turnId, lastEventId.or(() -> queryId)))))),
                path("cancel", () -> post(() -> onSuccess(cancel(sessions, sessionId, turnId),
                    reply -> json(StatusCodes.ACCEPTED, Json.MAPPER.createObjectNode().put("turn_id", turnId).put("status", "cancelling"))))))))));
  }

  private Route body(java.util.function.Function<String, Route> inner) {
    return entity(Unmarshaller.entityToString(), inner);
  }

  /** SSE only when the client names it: a wildcard Accept (curl's default) gets JSON. */
  private static boolean wantsEvents(Accept accept) {
    return accept.value().toLowerCase(java.util.Locale.ROOT).contains("text/event-stream");
  }

  static String validSessionId(String sessionId) {
    if (!RequestBodies.isUuid(sessionId)) {
      throw new ApiException(StatusCodes.NOT_FOUND, ChatSession.SESSION_NOT_FOUND, "Session not found");
    }
    return sessionId.toLowerCase();
  }

  // ---- asks ----

  /** The session commands of one caller's tenant. */
  private record TenantSessions(SessionGateway gateway, String tenantId) {

    CompletionStage<ChatSession.Reply> ask(String sessionId,
        org.apache.pekko.japi.function.Function<org.apache.pekko.actor.typed.ActorRef<ChatSession.Reply>, ChatSession.Command> command) {
      return gateway.ask(tenantId, sessionId, command);
    }
  }

  private CompletionStage<SessionView> open(String tenantId, String body) {
    RequestBodies.NewSession request = RequestBodies.newSession(body);
    String sessionId = request.sessionId().orElseGet(() -> UUID.randomUUID().toString());
    return sessions.ask(sessionId, replyTo -> new ChatSession.Open(tenantId, request.persona(), request.metadata(), replyTo))
        .thenApply(SessionRoutes::session);
  }

  private static CompletionStage<SessionView> view(TenantSessions sessions, String sessionId) {
    return sessions.ask(sessionId, ChatSession.Get::new).thenApply(SessionRoutes::session);
  }

  /**
   * An explicit close is always recorded with reason {@code closed}: billing tells it from an idle
   * close by the reason, so a client cannot choose it.
   */
  private static CompletionStage<SessionView> close(TenantSessions sessions, String sessionId, String body) {
    RequestBodies.parse(body, true);
    return sessions.ask(sessionId, replyTo -> new ChatSession.Close(CLOSED_REASON, replyTo)).thenApply(SessionRoutes::session);
  }

  private static CompletionStage<ChatSession.Reply> delete(TenantSessions sessions, String sessionId) {
    return sessions.ask(sessionId, ChatSession.Delete::new).thenApply(SessionRoutes::accepted);
  }

  private static CompletionStage<ChatSession.Reply> cancel(TenantSessions sessions, String sessionId, String turnId) {
    return sessions.ask(sessionId, replyTo -> new ChatSession.CancelTurn(turnId, replyTo)).thenApply(SessionRoutes::accepted);
  }

  private Route startTurn(TenantSessions sessions, String sessionId, String body, boolean events, String traceId) {
    RequestBodies.NewTurn request = RequestBodies.newTurn(body, settings.maxMessageBytes());
    CompletionStage<ChatSession.Reply> reply = sessions.ask(sessionId, replyTo -> new ChatSession.StartTurn(
        request.message(), request.turnId().orElse(null), request.idempotencyKey().orElse(null), request.models(),
        traceId, replyTo));
    return stream(reply, events);
  }

  private Route joinTurn(TenantSessions sessions, String sessionId, String turnId, Optional<String> lastEventId) {
    long afterId = lastEventId.map(SessionRoutes::eventId).orElse(0L);
    CompletionStage<ChatSession.Reply> reply =
        sessions.ask(sessionId, replyTo -> new ChatSession.JoinTurn(turnId, afterId, replyTo));
    return stream(reply, true);
  }

  private static long eventId(String value) {
    try {
      long id = Long.parseLong(value.strip());
      if (id >= 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new ApiException(StatusCodes.BAD_REQUEST, "INVALID_LAST_EVENT_ID", "Last-Event-ID must be a non-negative event id");
  }

  /**
   * Serves an accepted turn's stream, which the session materialized on its own node, as SSE or,
   * once it has ended, as JSON. A client that has already seen every frame of an ended turn gets
   * 204, which tells an EventSource to stop reconnecting.
   */
  private Route stream(CompletionStage<ChatSession.Reply> reply, boolean events) {
    long requestNanos = System.nanoTime();
    return onSuccess(reply.thenApply(r -> (ChatSession.TurnReply) accepted(r)), turn -> {
      if (turn.nothingFollows()) {
        return complete(StatusCodes.NO_CONTENT);
      }
      Source<TurnFrame, NotUsed> frames = turn.frames().getSource();
      return events
          ? complete(sse(MeteredFrames.meter(frames, requestNanos, metrics)))
          : onSuccess(collect(frames), this::turnResult);
    });
  }

  private HttpResponse sse(Source<TurnFrame, NotUsed> frames) {
    // A comment every keep-alive interval whatever else flows, so proxies and clients can rely on it.
    Source<ByteString, NotUsed> bytes = frames.map(SseFraming::canonical)
        .merge(Source.tick(settings.keepAlive(), settings.keepAlive(), SseFraming.KEEP_ALIVE), true);
    return HttpResponse.create()
        .withStatus(StatusCodes.OK)
        .addHeader(RawHeader.create("Cache-Control", "no-cache"))
        .addHeader(RawHeader.create("X-Accel-Buffering", "no"))
        .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(), bytes));
  }

  private CompletionStage<List<TurnFrame>> collect(Source<TurnFrame, NotUsed> frames) {
    return frames.runWith(Sink.seq(), sessions.system());
  }

  // ---- replies to HTTP ----

  private static SessionView session(ChatSession.Reply reply) {
    if (accepted(reply) instanceof ChatSession.SessionReply session) {
      return session.session();
    }
    throw new IllegalStateException("Unexpected reply " + reply);
  }

  private static ChatSession.Reply accepted(ChatSession.Reply reply) {
    if (reply instanceof ChatSession.Rejected rejected) {
      throw Errors.of(rejected);
    }
    return reply;
  }

  private Route created(SessionView view) {
    ObjectNode body = Json.MAPPER.createObjectNode()
        .put("session_id", view.sessionId())
        .put("status", status(view))
        .put("created_at", view.createdAt().toString());
    return json(StatusCodes.CREATED, body);
  }

  private Route closed(SessionView view) {
    ObjectNode body = Json.MAPPER.createObjectNode()
        .put("session_id", view.sessionId())
        .put("status", status(view))
        .put("reason", view.closeReason());
    summary(body.putObject("summary"), view.summary());
    return json(StatusCodes.OK, body);
  }

  private Route turnResult(List<TurnFrame> frames) {
    if (frames.isEmpty()) {
      throw new ApiException(StatusCodes.SERVICE_UNAVAILABLE, "STREAM_ENDED", "The turn's stream ended without an outcome");
    }
    TurnFrame last = frames.getLast();
    return switch (last.event()) {
      case TurnEvent.Completed completed -> json(StatusCodes.OK, turnJson(frames, completed));
      case TurnEvent.Failed failed -> complete(Errors.response(StatusCodes.BAD_GATEWAY, failed.code(), failed.message(), last.traceId()));
      case TurnEvent.Cancelled cancelled -> complete(Errors.response(StatusCodes.CONFLICT, "TURN_CANCELLED",
          "The turn was cancelled: " + cancelled.reason(), last.traceId()));
      default -> throw new ApiException(StatusCodes.SERVICE_UNAVAILABLE, "STREAM_ENDED", "The turn's stream ended without an outcome");
    };
  }

  private static ObjectNode turnJson(List<TurnFrame> frames, TurnEvent.Completed completed) {
    TurnFrame last = frames.getLast();
    ObjectNode body = Json.MAPPER.createObjectNode()
        .put("session_id", last.sessionId())
        .put("turn_id", last.turnId())
        .put("trace_id", last.traceId())
        .put("status", "completed")
        .put("message_id", completed.messageId())
        .put("text", completed.text())
        .put("latency_ms", completed.latencyMs());
    CanonicalEvents.usage(body.putObject("usage"), completed.usage());
    ArrayNode runs = body.putArray("runs");
    ArrayNode citations = body.putArray("citations");
    ArrayNode gaps = body.putArray("gaps");
    for (TurnFrame frame : frames) {
      switch (frame.event()) {
        case TurnEvent.RunCompleted run -> CanonicalEvents.run(runs.addObject().put("status", "completed"), run.run());
        case TurnEvent.RunFailed run -> runs.addObject().put("status", "failed").put("run_id", run.runId())
            .put("code", run.code()).put("message", run.message());
        case TurnEvent.Retrieved retrieved -> {
          CanonicalEvents.citations(citations, retrieved.citations());
          body.put("confidence", retrieved.confidence());
        }
        case TurnEvent.GapFound gap -> gaps.addObject().put("attribute", gap.gap().attribute()).put("suggestion", gap.gap().suggestion());
        default -> { }
      }
    }
    return body;
  }

  static ObjectNode sessionJson(SessionView view) {
    ObjectNode body = Json.MAPPER.createObjectNode()
        .put("session_id", view.sessionId())
        .put("status", status(view))
        .put("title", view.title())
        .put("persona", view.persona())
        .put("created_at", view.createdAt().toString())
        .put("updated_at", view.updatedAt().toString())
        .put("running_turn_id", view.runningTurnId())
        .put("close_reason", view.closeReason());
    body.set("metadata", view.metadata());
    ArrayNode messages = body.putArray("messages");
    for (SessionView.MessageView message : view.messages()) {
      ObjectNode node = messages.addObject()
          .put("message_id", message.messageId())
          .put("role", message.role())
          .put("content", message.content())
          .put("turn_id", message.turnId())
          .put("created_at", message.createdAt().toString());
      if (message.runId() != null) {
        node.put("run_id", message.runId()).put("model", message.model());
      }
      CanonicalEvents.citations(node.putArray("citations"), message.citations());
    }
    body.set("narrative_state", view.narrativeState());
    if (view.summary() != null) {
      summary(body.putObject("summary"), view.summary());
    }
    return body;
  }

  /** The state as JSON; a deleted session has no view and shows only its status. */
  static ObjectNode stateJson(dev.colloquy.engine.session.SessionState state) {
    if (!state.exists()) {
      return Json.MAPPER.createObjectNode().put("session_id", state.sessionId())
          .put("status", state.status().name().toLowerCase());
    }
    return sessionJson(state.view());
  }

  private static void summary(ObjectNode node, SessionSummary summary) {
    if (summary == null) {
      return;
    }
    node.put("turns", summary.turns()).put("completed_turns", summary.completedTurns())
        .put("opened_at", summary.openedAt().toString()).put("closed_at", summary.closedAt().toString())
        .put("duration_ms", summary.durationMs());
    ObjectNode usage = node.putObject("usage_by_model");
    summary.usageByModel().forEach((model, u) -> CanonicalEvents.usage(usage.putObject(model), u));
  }

  private static String status(SessionView view) {
    return view.status().name().toLowerCase();
  }

  private Route json(StatusCode status, ObjectNode body) {
    return complete(HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString())));
  }
}
