package dev.colloquy.http;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.HttpSettings;
import dev.colloquy.engine.Timeouts;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionState;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.session.SessionView;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.persistence.readside.MessageHistory;
import dev.colloquy.http.CanonicalEvents.CitationJson;
import dev.colloquy.http.CanonicalEvents.GapJson;
import dev.colloquy.http.CanonicalEvents.UsageJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Accept;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/** The canonical session and turn API of API.md under {@code /v1/sessions}. */
public final class SessionRoutes extends AllDirectives {

  static final String CLOSED_REASON = "closed";

  /** What a turn asked for as JSON sends while it runs: whitespace, which a JSON parser skips. */
  private static final ByteString JSON_KEEP_ALIVE = ByteString.fromString(" ");

  /** The tenant of the sessions journaled before tenancy, and of the command-line tools' defaults. */
  public static final String DEFAULT_TENANT = "default";

  /** The most bytes of events coalesced into one chunk while the connection is busy. */
  private static final long COALESCED_BYTES = 16 * 1024;

  private final SessionGateway sessions;
  private final SessionHistory history;
  private final ForkRoutes forks;
  private final HttpSettings settings;
  private final HttpMetrics metrics;
  private final Admission admission;

  /** Without a read side: a session's messages end where the turns it keeps in memory end. */
  public SessionRoutes(SessionGateway sessions, HttpSettings settings) {
    this(sessions, MessageHistory.NONE, settings, HttpMetrics.NONE, Admission.UNLIMITED);
  }

  public SessionRoutes(SessionGateway sessions, MessageHistory messages, HttpSettings settings, HttpMetrics metrics,
      Admission admission) {
    this.sessions = sessions;
    this.history = new SessionHistory(sessions, messages);
    this.forks = new ForkRoutes(sessions);
    this.settings = settings;
    this.metrics = metrics;
    this.admission = admission;
  }

  /**
   * The sessions of the caller's tenant, or of the caller's user when it acts for one: another
   * tenant's or user's session answers exactly as a missing one.
   */
  Route route(TraceIds traceIds, Principal caller) {
    return pathPrefix("v1", () -> pathPrefix("sessions", () -> concat(
        pathEndOrSingleSlash(() -> post(() -> body(body -> onSuccess(open(caller, body),
            view -> json(StatusCodes.CREATED, Created.toApi(view)))))),
        path("import", () -> post(() -> body(body -> forks.importJournal(caller, body)))),
        pathPrefix(segment(), sessionId -> sessionRoute(caller, validSessionId(sessionId), traceIds)))));
  }

  private Route sessionRoute(Principal caller, String sessionId, TraceIds traceIds) {
    return concat(
        pathEndOrSingleSlash(() -> concat(
            get(() -> parameterOptional("before", before -> parameterOptional("limit", limit ->
                onSuccess(view(caller, sessionId, before, limit), view -> json(StatusCodes.OK, SessionBody.toApi(view)))))),
            patch(() -> body(body -> onSuccess(rename(caller, sessionId, body),
                view -> json(StatusCodes.OK, SessionBody.toApi(view))))),
            delete(() -> onSuccess(delete(caller, sessionId), done -> complete(StatusCodes.NO_CONTENT))))),
        path("close", () -> post(() -> body(body -> onSuccess(close(caller, sessionId, body),
            view -> json(StatusCodes.OK, Closed.toApi(view)))))),
        path("fork", () -> post(() -> body(body -> forks.fork(caller, sessionId, body)))),
        path("handback", () -> post(() -> onSuccess(handBack(caller, sessionId),
            view -> json(StatusCodes.OK, SessionBody.toApi(view))))),
        pathPrefix("turns", () -> concat(
            pathEndOrSingleSlash(() -> post(() -> body(body -> optionalHeaderValueByType(Accept.class, accept ->
                traceIds.traceId(traceId -> startTurn(caller, sessionId, body,
                    accept.map(SessionRoutes::wantsEvents).orElse(false), traceId)))))),
            pathPrefix(segment(), turnId -> turnRoute(caller, sessionId, validTurnId(turnId))))));
  }

  private Route turnRoute(Principal caller, String sessionId, String turnId) {
    return concat(
        path("events", () -> get(() -> optionalHeaderValueByName("Last-Event-ID", lastEventId ->
            parameterOptional("last_event_id", queryId -> joinTurn(caller, sessionId, turnId, lastEventId.or(() -> queryId)))))),
        path("cancel", () -> post(() -> onSuccess(cancel(caller, sessionId, turnId),
            done -> json(StatusCodes.ACCEPTED, new Cancelling(turnId, "cancelling"))))));
  }

  HttpSettings settings() {
    return settings;
  }

  private Route body(Function<String, Route> inner) {
    return entity(Unmarshaller.entityToString(), inner);
  }

  /** SSE only when the client names it: a wildcard Accept (curl's default) gets JSON. */
  private static boolean wantsEvents(Accept accept) {
    return accept.value().toLowerCase(java.util.Locale.ROOT).contains("text/event-stream");
  }

  static String validSessionId(String sessionId) {
    if (!RequestBodies.isUuid(sessionId)) {
      throw new ApiException(ErrorCode.SESSION_NOT_FOUND, "Session not found");
    }
    return sessionId.toLowerCase();
  }

  /**
   * Turn ids are UUIDs (chosen by the session or validated in the request that chose them), so
   * anything else is answered at once, without asking the session, exactly as an unknown turn is.
   */
  static String validTurnId(String turnId) {
    if (!RequestBodies.isUuid(turnId)) {
      throw new ApiException(ErrorCode.TURN_NOT_FOUND, "Turn not found");
    }
    return turnId.toLowerCase(java.util.Locale.ROOT);
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
    throw new ApiException(ErrorCode.INVALID_LAST_EVENT_ID, "Last-Event-ID must be a non-negative event id");
  }

  // ---- asks ----

  private CompletionStage<SessionView> open(Principal caller, String body) {
    RequestBodies.NewSession request = RequestBodies.newSession(body);
    String sessionId = request.sessionId().orElseGet(() -> UUID.randomUUID().toString());
    return sessions.<ChatSession.SessionAnswer>ask(sessionId,
            replyTo -> new ChatSession.Open(caller.tenantId(), caller.userId().orElse(null), request.persona(),
                request.metadata(), replyTo))
        .thenApply(SessionRoutes::session);
  }

  private CompletionStage<SessionView> view(Principal caller, String sessionId, Optional<String> before,
      Optional<String> limit) {
    return history.page(caller, sessionId, before.map(SessionRoutes::messageId).orElse(null),
        limit.map(SessionRoutes::pageLimit).orElse(SessionState.PAGE_MESSAGES));
  }

  private static String messageId(String value) {
    if (!RequestBodies.isUuid(value)) {
      throw new ApiException(ErrorCode.INVALID_QUERY, "before must be the message_id of a message of this session");
    }
    return value.toLowerCase(java.util.Locale.ROOT);
  }

  private static int pageLimit(String value) {
    try {
      int limit = Integer.parseInt(value.strip());
      if (limit >= 1 && limit <= SessionState.MAX_PAGE_MESSAGES) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new ApiException(ErrorCode.INVALID_QUERY, "limit must be an integer from 1 to " + SessionState.MAX_PAGE_MESSAGES);
  }

  /**
   * An explicit close is always recorded with reason {@code closed}: billing tells it from an idle
   * close by the reason, so a client cannot choose it.
   */
  private CompletionStage<SessionView> close(Principal caller, String sessionId, String body) {
    RequestBodies.parse(body, true);
    return sessions.<ChatSession.SessionAnswer>ask(caller, sessionId, replyTo -> new ChatSession.Close(CLOSED_REASON, replyTo))
        .thenApply(SessionRoutes::session);
  }

  private CompletionStage<SessionView> rename(Principal caller, String sessionId, String body) {
    String title = RequestBodies.newTitle(body);
    return sessions.<ChatSession.SessionAnswer>ask(caller, sessionId, replyTo -> new ChatSession.Rename(title, replyTo))
        .thenApply(SessionRoutes::session);
  }

  /** Only an operator of the tenant (its credential without a user) hands a session back, never its end user. */
  private CompletionStage<SessionView> handBack(Principal caller, String sessionId) {
    if (caller.userId().isPresent()) {
      throw new ApiException(ErrorCode.FORBIDDEN,
          "Only the tenant's own credential, acting for no user, may hand a session back from its human agent");
    }
    return sessions.<ChatSession.SessionAnswer>ask(caller, sessionId, ChatSession.HandBack::new)
        .thenApply(SessionRoutes::session);
  }

  private CompletionStage<ChatSession.Done> delete(Principal caller, String sessionId) {
    return sessions.<ChatSession.DeleteAnswer>ask(caller, sessionId, ChatSession.Delete::new).thenApply(SessionRoutes::deleted);
  }

  private CompletionStage<ChatSession.TurnReply> cancel(Principal caller, String sessionId, String turnId) {
    return sessions.<ChatSession.TurnAnswer>ask(caller, sessionId, replyTo -> new ChatSession.CancelTurn(turnId, replyTo))
        .thenApply(SessionRoutes::turn);
  }

  private CompletionStage<ChatSession.TurnReply> start(Principal caller, String sessionId, RequestBodies.NewTurn request,
      String traceId) {
    return sessions.models().forTurn(caller.tenantId(), request.models()).thenCompose(models ->
        sessions.<ChatSession.TurnAnswer>ask(caller, sessionId, replyTo -> new ChatSession.StartTurn(request.message(),
            request.turnId().orElse(null), request.idempotencyKey().orElse(null), models, traceId, replyTo)))
        .thenApply(SessionRoutes::turn);
  }

  private CompletionStage<ChatSession.TurnReply> join(Principal caller, String sessionId, String turnId, long afterId) {
    return sessions.<ChatSession.TurnAnswer>ask(caller, sessionId, replyTo -> new ChatSession.JoinTurn(turnId, afterId, replyTo))
        .thenApply(SessionRoutes::turn);
  }

  private static SessionView session(ChatSession.SessionAnswer answer) {
    return switch (answer) {
      case ChatSession.SessionReply reply -> reply.session();
      case ChatSession.Rejected rejected -> throw Errors.refused(rejected);
    };
  }

  private static ChatSession.TurnReply turn(ChatSession.TurnAnswer answer) {
    return switch (answer) {
      case ChatSession.TurnReply reply -> reply;
      case ChatSession.Rejected rejected -> throw Errors.refused(rejected);
    };
  }

  private static ChatSession.Done deleted(ChatSession.DeleteAnswer answer) {
    return switch (answer) {
      case ChatSession.Done done -> done;
      case ChatSession.Rejected rejected -> throw Errors.refused(rejected);
    };
  }

  // ---- turn streams ----

  /** A new turn takes a place among the turns this node is starting, or is refused before the session hears of it. */
  private Route startTurn(Principal caller, String sessionId, String body, boolean events, String traceId) {
    RequestBodies.NewTurn request = RequestBodies.newTurn(body, settings.maxMessageBytes());
    return onSuccess(admission.enter(), place -> {
      CompletionStage<ChatSession.TurnReply> reply = start(caller, sessionId, request, traceId)
          .whenComplete((turn, error) -> {
            if (error != null || turn.nothingFollows()) {
              place.leave();
            } else {
              place.accepted();
            }
          });
      return stream(reply, events, 0, traceId, place::heldUntilFirstToken);
    });
  }

  private Route joinTurn(Principal caller, String sessionId, String turnId, Optional<String> lastEventId) {
    long afterId = lastEventId.map(SessionRoutes::eventId).orElse(0L);
    return stream(join(caller, sessionId, turnId, afterId), true, afterId, null, frames -> frames);
  }

  /**
   * Serves an accepted turn's stream, which the session materialized on its own node, as SSE or,
   * once it has ended, as JSON. A client that has already seen every frame of an ended turn (or
   * names an id beyond its last) gets 204, which tells an EventSource to stop reconnecting.
   */
  private Route stream(CompletionStage<ChatSession.TurnReply> reply, boolean events, long afterId, String traceId,
      UnaryOperator<Source<TurnFrame, NotUsed>> admitted) {
    long requestNanos = System.nanoTime();
    return onSuccess(reply, turn -> {
      if (turn.nothingFollows()) {
        return complete(StatusCodes.NO_CONTENT);
      }
      // A running turn sends its new frames to every subscriber; one that resumes with an id the turn
      // has not reached yet waits for the frames after it, so nothing is sent twice.
      Source<TurnFrame, NotUsed> frames =
          admitted.apply(turn.frames().getSource().filter(frame -> frame.id() > afterId));
      return events
          ? complete(sse(MeteredFrames.meter(frames, requestNanos, metrics)))
          : jsonAnswer(collect(frames).toCompletableFuture(), traceId);
    });
  }

  private HttpResponse sse(Source<TurnFrame, NotUsed> frames) {
    SseFraming.Writer writer = new SseFraming.Writer();
    // Events that pile up while the connection is busy go out as one chunk: no write waits for more
    // when the connection is free, and a busy one gets fewer, larger writes.
    Source<ByteString, NotUsed> events = frames.map(writer::write)
        .batchWeighted(COALESCED_BYTES, chunk -> (long) chunk.size(), first -> first, ByteString::concat);
    // A comment every keep-alive interval whatever else flows, so proxies and clients can rely on it.
    Source<ByteString, NotUsed> bytes = events
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

  /**
   * A turn asked for as JSON. One that ends within the keep-alive interval (nearly all) is answered
   * as it ended: 200 with its result, or the error status and body. A longer one would send nothing
   * for as long as its model runs, which the server's idle timeout, and any proxy's, cuts short; so
   * its answer starts then, as 200, with a space every keep-alive interval (JSON allows whitespace
   * before a value) and its outcome last, in the same bodies. As with a stream, a turn that fails
   * after its answer has started reports the failure in the body, under {@code error}.
   */
  private Route jsonAnswer(CompletableFuture<List<TurnFrame>> frames, String traceId) {
    CompletableFuture<Boolean> endedSoon = Timeouts.orAfter(frames.thenApply(ended -> true), false, settings.keepAlive());
    return onSuccess(endedSoon, ended -> {
      if (ended) {
        Outcome outcome = outcome(frames.join(), traceId);
        return complete(outcome.status().equals(StatusCodes.OK) ? Json.response(outcome.status(), outcome.body())
            : Errors.response(outcome.status(), outcome.error().code(), outcome.error().message(), outcome.error().traceId()));
      }
      Source<ByteString, NotUsed> answer = Source.completionStage(frames.handle((all, failure) ->
              outcome(failure == null ? all : List.of(), traceId).body()))
          .map(body -> ByteString.fromString(Json.write(body), StandardCharsets.UTF_8))
          .keepAlive(settings.keepAlive(), () -> JSON_KEEP_ALIVE)
          .prepend(Source.single(JSON_KEEP_ALIVE));
      return complete(HttpResponse.create().withStatus(StatusCodes.OK)
          .addHeader(RawHeader.create("Cache-Control", "no-cache"))
          .withEntity(HttpEntities.createChunked(ContentTypes.APPLICATION_JSON, answer)));
    });
  }

  /** How a turn asked for as JSON ended: its status and body ({@code error} is set for an error body). */
  private record Outcome(StatusCode status, Object body, Errors.Detail error) {
    static Outcome failed(StatusCode status, String code, String message, String traceId) {
      Errors.Detail detail = new Errors.Detail(code, message, traceId);
      return new Outcome(status, new Errors.ErrorBody(detail), detail);
    }
  }

  private static Outcome outcome(List<TurnFrame> frames, String traceId) {
    TurnFrame last = frames.isEmpty() ? null : frames.getLast();
    return switch (last == null ? null : last.event()) {
      case TurnEnding.Completed completed -> new Outcome(StatusCodes.OK, TurnResult.toApi(frames, completed), null);
      // The code comes from the turn's frames, which may have been journaled before a code was renamed.
      case TurnEnding.Failed failed -> Outcome.failed(StatusCodes.BAD_GATEWAY, failed.code(), failed.message(),
          last.traceId());
      case TurnEnding.Cancelled cancelled -> Outcome.failed(StatusCodes.get(ErrorCode.TURN_CANCELLED.httpStatus()),
          ErrorCode.TURN_CANCELLED.name(), "The turn was cancelled: " + cancelled.reason(), last.traceId());
      case null, default -> Outcome.failed(StatusCodes.get(ErrorCode.STREAM_ENDED.httpStatus()),
          ErrorCode.STREAM_ENDED.name(), "The turn's stream ended without an outcome", traceId);
    };
  }

  private Route json(StatusCode status, Object body) {
    return complete(Json.response(status, body));
  }

  // ---- response bodies ----

  record Created(String sessionId, String status, String createdAt) {
    static Created toApi(SessionView view) {
      return new Created(view.sessionId(), statusOf(view), view.createdAt().toString());
    }
  }

  record Closed(String sessionId, String status, String reason, Summary summary) {
    static Closed toApi(SessionView view) {
      return new Closed(view.sessionId(), statusOf(view), view.closeReason(), Summary.toApi(view.summary()));
    }
  }

  record Cancelling(String turnId, String status) {}

  /**
   * A session with a page of its messages; {@code next_before}, when messages precede the page, is
   * the {@code before} of the page before it. {@code summary} only once it is closed.
   */
  record SessionBody(String sessionId, String status, String title, String persona, String createdAt,
      String updatedAt, String runningTurnId, String closeReason, JsonNode metadata, List<Message> messages,
      String nextBefore, JsonNode narrativeState, @JsonInclude(JsonInclude.Include.NON_NULL) Summary summary) {

    static SessionBody toApi(SessionView view) {
      String nextBefore = view.page() != null && view.page().earlier() && !view.messages().isEmpty()
          ? view.messages().getFirst().messageId() : null;
      return new SessionBody(view.sessionId(), statusOf(view), view.title(), view.persona(),
          view.createdAt().toString(), view.updatedAt().toString(), view.runningTurnId(), view.closeReason(),
          view.metadata(), view.messages().stream().map(Message::toApi).toList(), nextBefore, view.narrativeState(),
          view.summary() == null ? null : Summary.toApi(view.summary()));
    }
  }

  /** A user message, or a run's answer, which names its run and model. */
  record Message(String messageId, String role, String content, String turnId, String createdAt,
      @JsonInclude(JsonInclude.Include.NON_NULL) String runId, @JsonInclude(JsonInclude.Include.NON_NULL) String model,
      List<CitationJson> citations) {

    static Message toApi(SessionView.MessageView message) {
      return new Message(message.messageId(), message.role(), message.content(), message.turnId(),
          message.createdAt().toString(), message.runId(), message.model(), CitationJson.toApi(message.citations()));
    }
  }

  /** What a closed session amounts to; an empty object for a session closed without one. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Summary(Integer turns, Integer completedTurns, String openedAt, String closedAt, Long durationMs,
      Map<String, UsageJson> usageByModel) {

    static Summary toApi(SessionSummary summary) {
      if (summary == null) {
        return new Summary(null, null, null, null, null, null);
      }
      Map<String, UsageJson> usage = new LinkedHashMap<>();
      summary.usageByModel().forEach((model, u) -> usage.put(model, UsageJson.toApi(u)));
      return new Summary(summary.turns(), summary.completedTurns(), summary.openedAt().toString(),
          summary.closedAt().toString(), summary.durationMs(), usage);
    }
  }

  /** A deleted session has no view and shows only its status. */
  record DeletedSession(String sessionId, String status) {}

  /** The state as the API shows it, as the journal endpoint rebuilds it. */
  static Record stateToApi(SessionState state) {
    if (!state.exists()) {
      return new DeletedSession(state.sessionId(), state.status().name().toLowerCase());
    }
    return SessionBody.toApi(state.view());
  }

  /**
   * A completed turn: its answer, every run, the citations and gaps, the retrieval's confidence if
   * any, how the agent routed the message (and which language it detected it in) and why it escalated
   * the session, if it did.
   */
  record TurnResult(String sessionId, String turnId, String traceId, String status, String messageId, String text,
      long latencyMs, UsageJson usage, List<Object> runs, List<CitationJson> citations, List<GapJson> gaps,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double confidence,
      @JsonInclude(JsonInclude.Include.NON_NULL) String intent,
      @JsonInclude(JsonInclude.Include.NON_NULL) String escalation,
      @JsonInclude(JsonInclude.Include.NON_NULL) String language) {

    static TurnResult toApi(List<TurnFrame> frames, TurnEnding.Completed completed) {
      TurnFrame last = frames.getLast();
      List<Object> runs = new ArrayList<>();
      List<CitationJson> citations = new ArrayList<>();
      List<GapJson> gaps = new ArrayList<>();
      Double confidence = null;
      String intent = null;
      String escalation = null;
      String language = null;
      for (TurnFrame frame : frames) {
        switch (frame.event()) {
          case StreamEvent.RunCompleted run -> runs.add(CompletedRun.toApi(run.run()));
          case StreamEvent.RunFailed run ->
              runs.add(new FailedRun("failed", run.runId(), run.provider(), run.model(), run.code(), run.message()));
          case StreamEvent.Retrieved retrieved -> {
            citations.addAll(CitationJson.toApi(retrieved.citations()));
            confidence = retrieved.confidence();
          }
          case StreamEvent.GapFound gap -> gaps.add(GapJson.toApi(gap.gap()));
          case StreamEvent.IntentRouted routed -> {
            intent = routed.intent().wireName();
            language = routed.language();
          }
          case StreamEvent.Escalated escalated -> escalation = escalated.reason().wireName();
          default -> { }
        }
      }
      return new TurnResult(last.sessionId(), last.turnId(), last.traceId(), "completed", completed.messageId(),
          completed.text(), completed.latencyMs(), UsageJson.toApi(completed.usage()), runs, citations, gaps,
          confidence, intent, escalation, language);
    }
  }

  record CompletedRun(String status, String runId, String provider, String model, String text, UsageJson usage,
      long latencyMs) {
    static CompletedRun toApi(RunOutcome run) {
      return new CompletedRun("completed", run.runId(), run.provider(), run.model(), run.text(),
          UsageJson.toApi(run.usage()), run.latencyMs());
    }
  }

  record FailedRun(String status, String runId, String provider, String model, String code, String message) {}

  private static String statusOf(SessionView view) {
    return view.status().name().toLowerCase();
  }
}
