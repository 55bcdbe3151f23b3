package dev.colloquy.http.dialect;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.EdgeSettings;
import dev.colloquy.config.HttpSettings;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.observe.TurnLogContext;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.http.Admission;
import dev.colloquy.http.HttpMetrics;
import dev.colloquy.http.SessionGateway;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.ingestion.documents.KnowledgeService;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Edge contract (seed 003): {@code POST /functions/v1/chat} and {@code POST /functions/v1/embed},
 * both answered as Server-Sent Events with {@code ready} first. The session must exist and be the
 * caller's; each session has its own rate limit on each endpoint. Every frame carries the trace id,
 * a UUID taken from the caller's {@code traceparent}, {@code X-Request-Id} or {@code X-Trace-Id}
 * when it sends one. A request refused before its stream gets its HTTP status and, as body, the
 * contract's single {@code error} frame with a lower-case code. A client that disconnects cancels
 * the turn, and so the upstream model call, at once: this contract has no resume grace.
 */
public final class EdgeRoutes extends AllDirectives {

  static final int MAX_ID = 255;

  private static final Logger log = LoggerFactory.getLogger(EdgeRoutes.class);

  private final DialectSessions sessions;
  private final DialectStreams streams;
  private final SessionRate rate;
  private final KnowledgeService knowledge;
  private final String embeddingModel;
  private final Executor blocking;
  private final EdgeSettings edge;
  private final HttpSettings settings;
  private final DialectErrors errors = new DialectErrors("Edge", EdgeRoutes::refused);

  /** {@code embeddingModel}: the name of the model the knowledge base embeds with, the only one an embed job may name. */
  public EdgeRoutes(SessionGateway gateway, KnowledgeService knowledge, String embeddingModel, Executor blocking,
      EdgeSettings edge, HttpSettings settings, HttpMetrics metrics,
      Admission admission) {
    this.sessions = new DialectSessions(gateway, admission);
    this.streams = new DialectStreams(sessions, settings.keepAlive(), metrics);
    this.rate = new SessionRate(gateway.system(), edge.sessionRequestsPerMinute(), settings.askTimeout());
    this.knowledge = knowledge;
    this.embeddingModel = embeddingModel;
    this.blocking = blocking;
    this.edge = edge;
    this.settings = settings;
  }

  /**
   * Refusals made before these routes (no or a bad credential, a tenant's rate limit or quota, a body
   * that is not JSON, a node shutting down) as the contract's single {@code error} frame, with their
   * status and headers ({@code Retry-After}, {@code WWW-Authenticate}): the contract's client reads every
   * answer as a stream ("invalid request: immediate error frame then close"), not as a JSON body.
   */
  public static ErrorShapes.Shape errorShape() {
    return new ErrorShapes.Shape() {
      @Override
      public boolean covers(String path) {
        return path.startsWith("/functions/v1/");
      }

      @Override
      public HttpResponse reword(HttpResponse canonical, ErrorShapes.CanonicalError error) {
        String traceId = EdgeTraceIds.uuid(error.traceId()).orElse(error.traceId());
        return refused(new DialectRefusal(StatusCodes.get(error.status()), error.code(), error.message()), traceId)
            .addHeaders(canonical.getHeaders());
      }
    };
  }

  public Route route(Principal caller) {
    return pathPrefix(segment("functions").slash("v1"), () -> extractRequest(request -> {
      String traceId = EdgeTraceIds.of(request);
      return errors.handle(traceId, () -> concat(
          path("chat", () -> post(() -> body(body -> optionalHeaderValueByName("Last-Event-ID", lastEventId ->
              chat(caller, traceId, body, lastEventId))))),
          path("embed", () -> post(() -> body(body -> embed(caller, traceId, body))))));
    }));
  }

  private Route body(Function<String, Route> inner) {
    return entity(Unmarshaller.entityToString(), inner);
  }

  // ---- POST /functions/v1/chat ----

  /**
   * Runs the turn, or joins it when its {@code request_id} or {@code idempotency_key} was sent before
   * (from the first frame, or after {@code Last-Event-ID}).
   */
  private Route chat(Principal caller, String traceId, String body, Optional<String> lastEventId) {
    long requestNanos = System.nanoTime();
    JsonNode json = DialectBodies.object(body);
    String sessionId = sessionId(json);
    String content = DialectBodies.message(json, "content", settings.maxMessageBytes());
    Optional<String> requestId = DialectBodies.optionalName(json, "request_id", MAX_ID);
    Optional<String> idempotencyKey = DialectBodies.optionalName(json, "idempotency_key", MAX_ID);
    List<String> models = DialectBodies.optionalName(json, "model", MAX_ID).map(List::of).orElse(List.of());
    long afterNumber = frameNumber(lastEventId);
    CompletionStage<ChatSession.TurnReply> turn = rate.admit(caller.tenantId(), "chat", sessionId)
        .thenCompose(admitted -> sessions.start(caller, sessionId, content, requestId.map(EdgeRoutes::turnIdOf).orElse(null),
            idempotencyKey.orElse(null), models, traceId));
    return onSuccess(turn, reply -> {
      String shownRequestId = requestId.orElse(reply.turnId());
      AtomicBoolean ended = new AtomicBoolean();
      return streams.serve(reply, () -> new EdgeFrames(shownRequestId), afterNumber, numbered -> {
        if (numbered.frame().last()) {
          ended.set(true);
        }
        return new DialectSse.Frame(numbered.frame().name(), Long.toString(numbered.number()), numbered.frame().data());
      }, requestNanos, frames -> Source.single(ready(reply.traceId())).concat(frames)
          .watchTermination((notUsed, done) -> {
            done.whenComplete((ok, failure) -> streamEnded(caller, sessionId, reply, shownRequestId, ended.get(),
                requestNanos));
            return notUsed;
          }));
    });
  }

  /** A client gone before the end cancels the turn now; every stream's end is logged with its trace id. */
  private void streamEnded(Principal caller, String sessionId, ChatSession.TurnReply reply, String requestId, boolean ended,
      long requestNanos) {
    if (!ended) {
      sessions.cancel(caller, sessionId, reply.turnId());
    }
    TurnLogContext.run(TurnLogContext.of(reply.traceId(), caller.tenantId(), sessionId, reply.turnId()), () ->
        log.info("Edge chat stream of request {} {} after {} ms", requestId, ended ? "ended" : "was closed by its client",
            (System.nanoTime() - requestNanos) / 1_000_000));
  }

  /** A request id names its turn: a UUID is the turn's id, anything else a name-based UUID of it. */
  static String turnIdOf(String requestId) {
    return DialectBodies.isUuid(requestId) ? requestId.toLowerCase()
        : UUID.nameUUIDFromBytes(("edge-request:" + requestId).getBytes(StandardCharsets.UTF_8)).toString();
  }

  private static DialectSse.Frame ready(String traceId) {
    return new DialectSse.Frame("ready", null, new Ready(traceId));
  }

  record Ready(String traceId) {}

  // ---- POST /functions/v1/embed ----

  private Route embed(Principal caller, String traceId, String body) {
    JsonNode json = DialectBodies.object(body);
    String sessionId = sessionId(json);
    List<EmbedJob.Item> items = items(json);
    Optional<String> model = DialectBodies.optionalName(json, "model", MAX_ID);
    if (model.isPresent() && !model.get().equals(embeddingModel)) {
      throw new DialectRefusal(StatusCodes.UNPROCESSABLE_ENTITY, ErrorCode.UNKNOWN_MODEL.name(),
          "Unknown embedding model '" + model.get() + "'; the knowledge base embeds with " + embeddingModel);
    }
    String jobId = DialectBodies.optionalName(json, "job_id", MAX_ID).orElseGet(() -> UUID.randomUUID().toString());
    CompletionStage<?> session = rate.admit(caller.tenantId(), "embed", sessionId)
        .thenCompose(admitted -> sessions.get(caller, sessionId))
        .thenApply(view -> {
          if (view.status() != SessionStatus.OPEN) {
            throw new DialectRefusal(ErrorCode.SESSION_CLOSED, "The session is closed");
          }
          return view;
        });
    return onSuccess(session, open -> complete(DialectSse.stream(
        new EmbedJob(knowledge, blocking, caller.tenantId(), jobId, traceId, items).frames(), settings.keepAlive())));
  }

  private List<EmbedJob.Item> items(JsonNode json) {
    JsonNode items = json.path("items");
    if (items.isMissingNode() || items.isNull()) {
      throw new DialectRefusal(ErrorCode.FIELD_REQUIRED, "The field items is required");
    }
    if (!items.isArray() || items.isEmpty() || items.size() > edge.maxEmbedItems()) {
      throw DialectBodies.invalid("items", "must be an array of 1 to " + edge.maxEmbedItems() + " {id, text} objects");
    }
    List<EmbedJob.Item> parsed = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      if (!item.isObject()) {
        throw DialectBodies.invalid("items[" + i + "]", "must be an {id, text} object");
      }
      String id = DialectBodies.optionalName(item, "id", MAX_ID)
          .orElseThrow(() -> new DialectRefusal(ErrorCode.FIELD_REQUIRED, "The field items[].id is required"));
      String text = DialectBodies.requiredText(item, "text");
      if (text.isBlank()) {
        throw DialectBodies.invalid("items[" + i + "].text", "must not be empty");
      }
      if (parsed.stream().anyMatch(other -> other.id().equals(id))) {
        throw DialectBodies.invalid("items", "names item '" + id + "' twice");
      }
      parsed.add(new EmbedJob.Item(id, text));
    }
    return parsed;
  }

  // ---- requests and errors ----

  private static String sessionId(JsonNode json) {
    String sessionId = DialectBodies.requiredText(json, "session_id");
    if (!DialectBodies.isUuid(sessionId)) {
      throw DialectBodies.invalid("session_id", "must be a session's id (a UUID)");
    }
    return sessionId.toLowerCase();
  }

  /** The number of the last frame the client saw: {@code Last-Event-ID} as this stream sends ids. */
  private static long frameNumber(Optional<String> lastEventId) {
    if (lastEventId.isEmpty() || lastEventId.get().isBlank()) {
      return 0;
    }
    try {
      long number = Long.parseLong(lastEventId.get().strip());
      if (number >= 0) {
        return number;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new DialectRefusal(ErrorCode.INVALID_LAST_EVENT_ID, "Last-Event-ID must be the id of a frame this stream sent");
  }

  /**
   * Every refusal as the contract's single error frame, with its HTTP status: a {@code bad_request} is 400
   * whatever the code it stands for; every other code keeps its status.
   */
  private static HttpResponse refused(DialectRefusal refusal, String traceId) {
    String code = EdgeCodes.of(refusal.code());
    HttpResponse response = DialectSse.single(code.equals(EdgeCodes.BAD_REQUEST) ? StatusCodes.BAD_REQUEST : refusal.status(),
        new DialectSse.Frame("error", null, new EdgeFrames.Problem(code, refusal.getMessage(), traceId)));
    return refusal.retryAfterSeconds() > 0
        ? response.addHeader(RawHeader.create("Retry-After", Long.toString(refusal.retryAfterSeconds())))
        : response;
  }
}
