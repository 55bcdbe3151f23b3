package dev.colloquy.http.dialect;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.HttpSettings;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnStatus;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionView;
import dev.colloquy.http.Admission;
import dev.colloquy.http.Errors;
import dev.colloquy.http.HttpMetrics;
import dev.colloquy.http.Json;
import dev.colloquy.http.MeteredFrames;
import dev.colloquy.http.SessionGateway;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.persistence.dialect.TurnSessions;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The fan-out dialect (seed 001, "Milestone 1"): a conversation is a session, each of its turns fans
 * out to several models, and a turn's stream is named by the turn alone
 * ({@code GET /v1/turns/{turnId}/stream}), its session found in {@link TurnSessions}. Bodies and
 * events are camelCase as the seed writes them; refusals have the canonical error shape, a session
 * being a conversation in their codes ({@code CONVERSATION_NOT_FOUND}, {@code CONVERSATION_CLOSED}).
 * A turn runs to its end whether or not a client watches it: the server listens to it from the start,
 * as the seed's API does, and a client joins it (or resumes it with {@code Last-Event-ID}) at any time.
 */
public final class FanOutRoutes extends AllDirectives {

  private static final String CONVERSATION_NOT_FOUND = "CONVERSATION_NOT_FOUND";
  private static final String CONVERSATION_CLOSED = "CONVERSATION_CLOSED";

  private final SessionGateway sessions;
  private final TurnSessions turnSessions;
  private final HttpSettings settings;
  private final HttpMetrics metrics;
  private final Clock clock;
  private final Admission admission;
  private final DialectErrors errors = new DialectErrors("Fan-out", FanOutRoutes::response);

  public FanOutRoutes(SessionGateway sessions, TurnSessions turnSessions, HttpSettings settings, HttpMetrics metrics,
      Clock clock, Admission admission) {
    this.sessions = sessions;
    this.turnSessions = turnSessions;
    this.settings = settings;
    this.metrics = metrics;
    this.clock = clock;
    this.admission = admission;
  }

  /** The conversations and turns of {@code caller}: another tenant's or user's answer as missing ones. */
  public Route route(Principal caller, String traceId) {
    return pathPrefix("v1", () -> concat(
        pathPrefix("conversations", () -> errors.handle(traceId, () -> concat(
            pathEnd(() -> post(() -> body(body -> onSuccess(open(caller, body),
                view -> json(StatusCodes.CREATED, Conversation.toApi(view)))))),
            pathPrefix(segment(), id -> concat(
                pathEnd(() -> get(() -> onSuccess(view(caller, conversationId(id)),
                    view -> json(StatusCodes.OK, Conversation.toApi(view))))),
                path("turns", () -> post(() -> body(body -> onSuccess(
                    start(caller, conversationId(id), FanOutTurnRequest.parse(body, settings.maxMessageBytes()), traceId),
                    turn -> json(StatusCodes.CREATED, turn)))))))))),
        path(segment("turns").slash(segment()).slash("stream"), turnId -> get(() -> errors.handle(traceId, () ->
            optionalHeaderValueByName("Last-Event-ID", lastEventId ->
                stream(caller, turnId, lastEventId.map(FanOutRoutes::eventId).orElse(0L))))))));
  }

  /** Refusals have the canonical error shape, whatever code they carry. */
  private static HttpResponse response(DialectRefusal refusal, String traceId) {
    return Errors.response(refusal.status(), refusal.code(), refusal.getMessage(), traceId);
  }

  private Route body(Function<String, Route> inner) {
    return entity(Unmarshaller.entityToString(), inner);
  }

  private Route json(StatusCode status, Object body) {
    return complete(CamelCaseJson.response(status, body));
  }

  // ---- asks ----

  private CompletionStage<SessionView> open(Principal caller, String body) {
    DialectBodies.objectOrEmpty(body);
    return sessions.<ChatSession.SessionAnswer>ask(UUID.randomUUID().toString(), replyTo -> new ChatSession.Open(
            caller.tenantId(), caller.userId().orElse(null), null, Json.MAPPER.createObjectNode(), replyTo))
        .thenApply(FanOutRoutes::session);
  }

  private CompletionStage<SessionView> view(Principal caller, String conversationId) {
    return sessions.<ChatSession.SessionAnswer>ask(caller, conversationId, ChatSession.Get::new)
        .thenApply(FanOutRoutes::session);
  }

  /**
   * Starts the turn on the tenant's fan-out models (or those the request names), records its session
   * so its stream can be found by the turn alone, and listens to it so that it runs to its end.
   */
  private CompletionStage<TurnCreated> start(Principal caller, String conversationId, FanOutTurnRequest request,
      String traceId) {
    String turnId = UUID.randomUUID().toString();
    return admission.admit(place -> sessions.models().forFanOut(caller.tenantId(), request.models())
            .thenCompose(models -> sessions.<ChatSession.TurnAnswer>ask(caller, conversationId, replyTo ->
                // A conversation is never closed by its contract: one the engine closed for idleness reopens.
                new ChatSession.StartTurn(request.prompt(), turnId, null, models, traceId, true, replyTo)))
            .thenApply(FanOutRoutes::turn).thenApply(place::held))
        .thenCompose(reply -> turnSessions.record(turnId, conversationId, caller.tenantId()).thenApply(recorded -> {
          reply.frames().getSource().runWith(Sink.ignore(), sessions.system());
          return TurnCreated.toApi(conversationId, reply);
        }));
  }

  private Route stream(Principal caller, String turnId, long afterId) {
    long requestNanos = System.nanoTime();
    CompletionStage<ChatSession.TurnReply> joined = turnSessions.sessionOf(validTurnId(turnId), caller.tenantId())
        .thenCompose(session -> session.map(sessionId -> sessions.<ChatSession.TurnAnswer>ask(caller, sessionId,
                replyTo -> new ChatSession.JoinTurn(turnId, afterId, replyTo)).thenApply(FanOutRoutes::turn))
            .orElseThrow(FanOutRoutes::turnNotFound));
    return onSuccess(joined, reply -> {
      if (reply.nothingFollows()) {
        return complete(StatusCodes.NO_CONTENT);
      }
      FanOutEvents events = new FanOutEvents(turnId, reply.runs(), clock);
      Source<TurnFrame, NotUsed> frames = reply.frames().getSource().filter(frame -> frame.id() > afterId);
      return complete(DialectSse.streamOfBytes(MeteredFrames.meter(frames, requestNanos, metrics).mapConcat(events::events),
          settings.keepAlive(), List.of()));
    });
  }

  // ---- engine answers in the dialect's words ----

  private static SessionView session(ChatSession.SessionAnswer answer) {
    return switch (answer) {
      case ChatSession.SessionReply reply -> reply.session();
      case ChatSession.Rejected rejected -> throw refusal(rejected);
    };
  }

  private static ChatSession.TurnReply turn(ChatSession.TurnAnswer answer) {
    return switch (answer) {
      case ChatSession.TurnReply reply -> reply;
      case ChatSession.Rejected rejected -> throw refusal(rejected);
    };
  }

  private static DialectRefusal refusal(ChatSession.Rejected rejected) {
    return switch (rejected.code()) {
      case ChatSession.SESSION_NOT_FOUND -> conversationNotFound();
      case ChatSession.SESSION_CLOSED ->
          new DialectRefusal(StatusCodes.CONFLICT, CONVERSATION_CLOSED, "The conversation is closed");
      case ChatSession.TURN_NOT_FOUND -> turnNotFound();
      case ChatSession.TURN_IN_PROGRESS -> new DialectRefusal(ErrorCode.TURN_IN_PROGRESS,
          "Turn " + rejected.turnId() + " of this conversation is still running");
      default -> DialectRefusal.of(rejected);
    };
  }

  private static DialectRefusal conversationNotFound() {
    return new DialectRefusal(StatusCodes.NOT_FOUND, CONVERSATION_NOT_FOUND, "Conversation not found");
  }

  /** The same for a turn that does not exist, is another tenant's or user's, or whose session is gone. */
  private static DialectRefusal turnNotFound() {
    return new DialectRefusal(ErrorCode.TURN_NOT_FOUND, "Turn not found");
  }

  private static String conversationId(String id) {
    return uuid(id).orElseThrow(FanOutRoutes::conversationNotFound);
  }

  private static String validTurnId(String id) {
    return uuid(id).orElseThrow(FanOutRoutes::turnNotFound);
  }

  private static Optional<String> uuid(String id) {
    return DialectBodies.isUuid(id) ? Optional.of(id.toLowerCase(Locale.ROOT)) : Optional.empty();
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
    throw new DialectRefusal(ErrorCode.INVALID_LAST_EVENT_ID, "Last-Event-ID must be a non-negative event id");
  }

  // ---- request and response bodies ----

  /** {@code {"prompt": "…", "models"?: ["provider/model", …]}}: without models, the tenant's fan-out set. */
  record FanOutTurnRequest(String prompt, List<String> models) {

    static FanOutTurnRequest parse(String body, long maxPromptBytes) {
      JsonNode json = DialectBodies.object(body);
      String prompt = DialectBodies.requiredText(json, "prompt");
      long bytes = prompt.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > maxPromptBytes) {
        throw new DialectRefusal(ErrorCode.MESSAGE_TOO_LARGE,
            "The prompt is " + bytes + " bytes; the limit is " + maxPromptBytes);
      }
      List<String> models = new ArrayList<>();
      JsonNode names = json.path("models");
      if (!names.isMissingNode() && !names.isNull()) {
        if (!names.isArray()) {
          throw DialectBodies.invalid("models", "must be an array of model names");
        }
        for (JsonNode name : names) {
          if (!name.isTextual() || name.asText().isBlank() || models.contains(name.asText())) {
            throw DialectBodies.invalid("models", "must be an array of different model names");
          }
          models.add(name.asText());
        }
      }
      return new FanOutTurnRequest(prompt, models);
    }
  }

  record TurnCreated(String turnId, String conversationId, String status, List<Run> runs, String streamUrl) {
    static TurnCreated toApi(String conversationId, ChatSession.TurnReply reply) {
      return new TurnCreated(reply.turnId(), conversationId, "running",
          reply.runs().stream().map(run -> new Run(run.runId(), run.provider(), run.model())).toList(),
          "/v1/turns/" + reply.turnId() + "/stream");
    }
  }

  record Run(String runId, String provider, String model) {}

  record Conversation(String id, String status, String title, String createdAt, String updatedAt, List<Turn> turns) {
    static Conversation toApi(SessionView view) {
      return new Conversation(view.sessionId(), view.status().name().toLowerCase(Locale.ROOT), view.title(),
          view.createdAt().toString(), view.updatedAt().toString(), view.turns().stream().map(turn -> Turn.toApi(view, turn)).toList());
    }
  }

  /** A turn and every agent response, in the order its runs were started; failed ones included. */
  record Turn(String turnId, String prompt, String status, String createdAt,
      @JsonInclude(JsonInclude.Include.NON_NULL) String endedAt, List<AgentResponse> agentResponses) {
    static Turn toApi(SessionView view, SessionView.TurnView turn) {
      return new Turn(turn.turnId(), view.messageOf(turn), statusOf(turn.status()), turn.acceptedAt().toString(),
          turn.endedAt() == null ? null : turn.endedAt().toString(),
          turn.runs().stream().map(run -> AgentResponse.toApi(view, turn, run)).toList());
    }
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record AgentResponse(String runId, String provider, String model, String status, String text, Usage usage,
      Long latencyMs, String errorCode, String errorMessage) {

    /** A run that has ended as it ended; one still running as such; one its turn ended without (a crash) as the turn ended. */
    static AgentResponse toApi(SessionView view, SessionView.TurnView turn, RunSpec run) {
      Optional<RunOutcome> outcome = turn.outcome(run.runId());
      if (outcome.isPresent()) {
        RunOutcome ended = outcome.get();
        return new AgentResponse(run.runId(), ended.provider(), ended.model(), ended.status().name().toLowerCase(Locale.ROOT),
            view.textOf(turn, ended), Usage.of(ended.usage()), ended.latencyMs(), ended.errorCode(), ended.errorMessage());
      }
      if (turn.status() == TurnStatus.PENDING) {
        return new AgentResponse(run.runId(), run.provider(), run.model(), "running", "", null, null, null, null);
      }
      return new AgentResponse(run.runId(), run.provider(), run.model(), statusOf(turn.status()), "", null, null,
          turn.endCode(), turn.endMessage());
    }
  }

  record Usage(long promptTokens, long completionTokens, long totalTokens, double costUsd) {
    static Usage of(dev.colloquy.engine.domain.Usage usage) {
      return new Usage(usage.promptTokens(), usage.completionTokens(), usage.totalTokens(), usage.costUsd());
    }
  }

  private static String statusOf(TurnStatus status) {
    return status == TurnStatus.PENDING ? "running" : status.name().toLowerCase(Locale.ROOT);
  }
}
