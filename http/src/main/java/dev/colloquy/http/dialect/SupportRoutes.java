package dev.colloquy.http.dialect;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.HttpSettings;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionView;
import dev.colloquy.http.Admission;
import dev.colloquy.http.Errors;
import dev.colloquy.http.HttpMetrics;
import dev.colloquy.http.Json;
import dev.colloquy.http.SessionGateway;
import dev.colloquy.http.SessionHistory;
import dev.colloquy.http.auth.Principal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

/**
 * The Support agent contract (seed 004 §5.2–5.3): sessions started for an end user of the tenant
 * ({@code external_user_id}), ended, and read back as a transcript; messages answered as one JSON body
 * or streamed. The tenant's key comes in {@code X-API-Key}. Errors are the contract's
 * {@code {"error": {"code", "message"}}} (with API.md's {@code trace_id}); a session that is missing,
 * another's, or closed is {@code INVALID_SESSION}. {@code GET /v1/health}, {@code /v1/knowledge/*}
 * and {@code /v1/config} are served by the canonical routes.
 */
public final class SupportRoutes extends AllDirectives {

  static final String INVALID_SESSION = "INVALID_SESSION";
  static final int MAX_EXTERNAL_USER_ID = 256;

  private final DialectSessions sessions;
  private final SessionHistory history;
  private final DialectStreams streams;
  private final HttpSettings settings;
  private final DialectErrors errors = new DialectErrors("Support", SupportRoutes::response);

  public SupportRoutes(SessionGateway gateway, SessionHistory history, HttpSettings settings, HttpMetrics metrics,
      Admission admission) {
    this.sessions = new DialectSessions(gateway, admission);
    this.history = history;
    this.streams = new DialectStreams(sessions, settings.keepAlive(), metrics);
    this.settings = settings;
  }

  public Route route(Principal caller, String traceId) {
    return errors.handle(traceId, () -> pathPrefix("v1", () -> concat(
        pathPrefix("session", () -> concat(
            path("start", () -> post(() -> body(body -> onSuccess(start(caller, body), this::ok)))),
            pathPrefix(segment(), sessionId -> concat(
                path("end", () -> post(() -> onSuccess(end(caller, sessionId(sessionId)), this::ok))),
                path("transcript", () -> get(() -> onSuccess(transcript(caller, sessionId(sessionId)), this::ok))))))),
        pathPrefix("chat", () -> pathPrefix("message", () -> concat(
            pathEndOrSingleSlash(() -> post(() -> body(body -> optionalHeaderValueByName("Last-Event-ID", lastEventId ->
                message(caller, traceId, body, lastEventId))))),
            path("stream", () -> get(() -> parameterOptional("session_id", sessionId -> parameterOptional("message",
                message -> optionalHeaderValueByName("Last-Event-ID", lastEventId ->
                    stream(caller, traceId, sessionId.orElse(null), message.orElse(null), lastEventId))))))))))));
  }

  private Route body(Function<String, Route> inner) {
    return entity(Unmarshaller.entityToString(), inner);
  }

  // ---- sessions ----

  /** A session of the caller's tenant, for the end user the body names or, for a user's credential, that user. */
  private CompletionStage<Started> start(Principal caller, String body) {
    JsonNode json = DialectBodies.objectOrEmpty(body);
    Optional<String> externalUserId = DialectBodies.optionalName(json, "external_user_id", MAX_EXTERNAL_USER_ID);
    if (caller.userId().isPresent() && externalUserId.isPresent() && !caller.userId().equals(externalUserId)) {
      throw DialectBodies.invalid("external_user_id", "must be the caller's own user when the credential names one");
    }
    JsonNode metadata = json.path("metadata");
    if (metadata.isMissingNode() || metadata.isNull()) {
      metadata = Json.MAPPER.createObjectNode();
    } else if (!metadata.isObject()) {
      throw DialectBodies.invalid("metadata", "must be a JSON object");
    }
    String userId = caller.userId().or(() -> externalUserId).orElse(null);
    return sessions.open(caller, UUID.randomUUID().toString(), userId, null, metadata, null)
        .thenApply(view -> new Started(view.sessionId(), view.createdAt()));
  }

  private CompletionStage<Ended> end(Principal caller, String sessionId) {
    return sessions.close(caller, sessionId).thenApply(Ended::toApi);
  }

  /** The whole transcript, as the contract has it (the canonical API pages it), within SessionHistory's bound. */
  private CompletionStage<Transcript> transcript(Principal caller, String sessionId) {
    return history.whole(caller, sessionId).thenApply(Transcript::toApi);
  }

  // ---- messages ----

  /** {@code POST /v1/chat/message}: the answer as JSON, or with {@code "stream": true} as the message stream. */
  private Route message(Principal caller, String traceId, String body, Optional<String> lastEventId) {
    long requestNanos = System.nanoTime();
    JsonNode json = DialectBodies.object(body);
    String sessionId = sessionId(DialectBodies.requiredText(json, "session_id"));
    String message = DialectBodies.message(json, "message", settings.maxMessageBytes());
    boolean stream = DialectBodies.optionalBoolean(json, "stream", false);
    if (stream) {
      return streamed(caller, traceId, sessionId, message, lastEventId, requestNanos);
    }
    return onSuccess(sessions.start(caller, sessionId, message, null, null, List.of(), traceId)
        .thenCompose(turn -> sessions.collect(turn.frames().getSource())), this::answered);
  }

  /** {@code GET /v1/chat/message/stream?session_id=…&message=…}, for clients that read an EventSource. */
  private Route stream(Principal caller, String traceId, String sessionId, String message, Optional<String> lastEventId) {
    long requestNanos = System.nanoTime();
    if (sessionId == null) {
      throw new DialectRefusal(ErrorCode.FIELD_REQUIRED, "The query parameter session_id is required");
    }
    if (message == null) {
      throw new DialectRefusal(ErrorCode.MESSAGE_REQUIRED, "The query parameter message is required");
    }
    if (message.getBytes(StandardCharsets.UTF_8).length > settings.maxMessageBytes()) {
      throw new DialectRefusal(ErrorCode.MESSAGE_TOO_LARGE, "The message is larger than " + settings.maxMessageBytes()
          + " bytes");
    }
    return streamed(caller, traceId, sessionId(sessionId), message, lastEventId, requestNanos);
  }

  /** A new turn's stream, or with {@code Last-Event-ID} (an id this stream sent) the rest of that turn's. */
  private Route streamed(Principal caller, String traceId, String sessionId, String message, Optional<String> lastEventId,
      long requestNanos) {
    Optional<TurnEventId> resume = TurnEventId.parse(lastEventId);
    CompletionStage<ChatSession.TurnReply> turn = resume.isPresent()
        ? sessions.join(caller, sessionId, resume.get().turnId(), 0)
        : sessions.start(caller, sessionId, message, null, null, List.of(), traceId);
    return onSuccess(turn, reply -> streams.serve(reply, SupportFrames::new, resume.map(TurnEventId::number).orElse(0L),
        numbered -> new DialectSse.Frame(null, new TurnEventId(reply.turnId(), numbered.number()).value(),
            numbered.frame()),
        requestNanos));
  }

  private Route answered(List<TurnFrame> frames) {
    TurnEnding ending = frames.isEmpty() ? null : frames.getLast().event() instanceof TurnEnding end ? end : null;
    return switch (ending) {
      case TurnEnding.Completed completed ->
          ok(MessageReply.toApi(completed, SupportAnswer.of(frames, completed)));
      case TurnEnding.Failed failed -> throw new DialectRefusal(StatusCodes.BAD_GATEWAY, failed.code(), failed.message());
      case TurnEnding.Cancelled cancelled ->
          throw new DialectRefusal(ErrorCode.TURN_CANCELLED, "The turn was cancelled: " + cancelled.reason());
      case null -> throw new DialectRefusal(ErrorCode.STREAM_ENDED, "The turn's stream ended without an outcome");
    };
  }

  /** A session id that is no UUID names no session. */
  private static String sessionId(String value) {
    if (!DialectBodies.isUuid(value)) {
      throw invalidSession();
    }
    return value.toLowerCase();
  }

  private static DialectRefusal invalidSession() {
    return new DialectRefusal(StatusCodes.NOT_FOUND, INVALID_SESSION, "Session not found or expired");
  }

  // ---- errors ----

  /** A missing, foreign or closed session is the contract's INVALID_SESSION ("not found or expired"). */
  private static HttpResponse response(DialectRefusal refusal, String traceId) {
    DialectRefusal shown = refusal.code().equals(ErrorCode.SESSION_NOT_FOUND.name())
        || refusal.code().equals(ErrorCode.SESSION_CLOSED.name()) ? invalidSession() : refusal;
    return Errors.response(shown.status(), shown.code(), shown.getMessage(), traceId);
  }

  private Route ok(Object body) {
    return complete(Json.response(StatusCodes.OK, body));
  }

  // ---- response bodies ----

  record Started(String sessionId, Instant createdAt) {}

  /** A session's status in the contract's names: open is {@code active}, closed (by its end or idle) {@code resolved}. */
  static String statusName(SessionStatus status) {
    return status == SessionStatus.OPEN ? "active" : "resolved";
  }

  record Ended(String sessionId, String status, Summary summary) {
    static Ended toApi(SessionView view) {
      return new Ended(view.sessionId(), statusName(view.status()), Summary.toApi(view));
    }
  }

  /**
   * The session's totals, as the contract's billing record counts them. A view holds only a page of
   * the messages, so they are counted from the summary: each turn's message, and the one answer of
   * each completed turn (a support turn runs one model).
   */
  record Summary(int totalMessages, long totalInputTokens, long totalOutputTokens, Long durationMs, Instant endedAt) {
    static Summary toApi(SessionView view) {
      SessionSummary summary = view.summary();
      Usage usage = summary == null ? Usage.NONE
          : summary.usageByModel().values().stream().reduce(Usage.NONE, Usage::plus);
      int messages = summary == null ? view.messages().size() : summary.turns() + summary.completedTurns();
      return new Summary(messages, usage.promptTokens(), usage.completionTokens(),
          summary == null ? null : summary.durationMs(), summary == null ? null : summary.closedAt());
    }
  }

  /** {@code truncated}: present, and true, only when the oldest messages were left out (SessionHistory.WHOLE_BYTES). */
  record Transcript(String sessionId, List<Line> messages, @JsonInclude(JsonInclude.Include.NON_NULL) Boolean truncated) {
    static Transcript toApi(SessionView view) {
      return new Transcript(view.sessionId(),
          view.messages().stream().map(m -> new Line(m.role(), m.content(), m.createdAt())).toList(),
          view.page() != null && view.page().earlier() ? Boolean.TRUE : null);
    }
  }

  record Line(String role, String content, Instant createdAt) {}

  record MessageReply(String messageId, String response, Double confidence, List<SupportAnswer.Source> sources,
      boolean escalationRequired, String escalationReason, long latencyMs) {
    static MessageReply toApi(TurnEnding.Completed completed, SupportAnswer answer) {
      return new MessageReply(answer.messageId(), completed.text(), answer.confidence(), answer.sources(),
          answer.escalationRequired(), answer.escalationReason(), answer.latencyMs());
    }
  }
}
