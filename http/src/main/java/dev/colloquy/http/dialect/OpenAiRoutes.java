package dev.colloquy.http.dialect;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import dev.colloquy.config.HttpSettings;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.http.Admission;
import dev.colloquy.http.HttpMetrics;
import dev.colloquy.http.Json;
import dev.colloquy.http.MeteredFrames;
import dev.colloquy.http.SessionGateway;
import dev.colloquy.http.SseKeepAlive;
import dev.colloquy.http.auth.Principal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The OpenAI-compatible dialect: {@code POST /v1/chat/completions} and {@code GET /v1/models}, so a
 * client of OpenAI's API works against Colloquy by changing its base URL. A completion is a turn of a
 * session: the one named by {@code X-Session-Id}, whose own history is the context (only the request's
 * last message is taken), or else a new one opened from the request's messages, whose id comes back in
 * {@code X-Session-Id}. Refusals come in OpenAI's error shape ({@link OpenAiError}).
 */
public final class OpenAiRoutes extends AllDirectives {

  static final String SESSION_HEADER = "X-Session-Id";

  private final SessionGateway sessions;
  private final ModelCatalog models;
  private final HttpSettings settings;
  private final HttpMetrics metrics;
  private final Admission admission;
  private final SseKeepAlive keepAlive;

  public OpenAiRoutes(SessionGateway sessions, ModelCatalog models, HttpSettings settings, HttpMetrics metrics,
      Admission admission) {
    this.sessions = sessions;
    this.models = models;
    this.settings = settings;
    this.metrics = metrics;
    this.admission = admission;
    this.keepAlive = SseKeepAlive.of(sessions.system(), settings.keepAlive());
  }

  /** Every path of this dialect, whose canonical refusals {@link ErrorShapes} words as OpenAI does. */
  public static boolean covers(String path) {
    return path.equals("/v1/chat/completions") || path.equals("/v1/models");
  }

  /** Refusals on this dialect's paths, in OpenAI's shape whichever layer made them. */
  public static ErrorShapes.Shape errorShape() {
    return new ErrorShapes.Shape() {
      @Override
      public boolean covers(String path) {
        return OpenAiRoutes.covers(path);
      }

      @Override
      public HttpResponse reword(HttpResponse canonical, ErrorShapes.CanonicalError error) {
        return OpenAiError.of(error.status(), error.code(), error.message()).response(error.traceId())
            .addHeaders(canonical.getHeaders());
      }
    };
  }

  /** The routes for {@code caller}, whose sessions are the only ones it can name. */
  public Route route(Principal caller, String traceId) {
    return pathPrefix("v1", () -> concat(
        path(segment("chat").slash("completions"), () -> post(() -> refusedAsOpenAi(traceId, () ->
            entity(Unmarshaller.entityToString(), body -> optionalHeaderValueByName(SESSION_HEADER, session ->
                completion(caller, OpenAiRequest.parse(body, settings.maxMessageBytes()), session, traceId)))))),
        path("models", () -> get(() -> complete(Json.response(StatusCodes.OK, ModelList.of(models))
            .addHeader(requestId(traceId)))))));
  }

  private Route refusedAsOpenAi(String traceId, Supplier<Route> inner) {
    return handleExceptions(ExceptionHandler.newBuilder()
        .match(OpenAiError.class, error -> complete(error.response(traceId)))
        .match(CompletionException.class, error -> error.getCause() instanceof OpenAiError openAi
            ? complete(openAi.response(traceId)) : failWith(error.getCause()))
        .build(), inner);
  }

  private Route completion(Principal caller, OpenAiRequest request, Optional<String> sessionHeader, String traceId) {
    ModelCatalog.Entry model = models.resolve(request.model()).orElseThrow(() -> new OpenAiError(404, "model_not_found",
        "model", "The model '" + request.model() + "' does not exist; GET /v1/models lists the models there are."));
    long created = Instant.now().getEpochSecond();
    long requestNanos = System.nanoTime();
    // Admitted before a session is opened: a refused completion (503 OVERLOADED, in OpenAI's shape
    // through ErrorShapes) leaves nothing behind.
    CompletionStage<Started> started = admission.admit(place -> session(caller, request, sessionHeader)
        .thenCompose(sessionId -> start(caller, sessionId, request, model, traceId)
            .thenApply(reply -> new Started(sessionId, place.held(reply)))));
    return onSuccess(started, turn -> {
      List<HttpHeader> headers = List.of(RawHeader.create(SESSION_HEADER, turn.sessionId()), requestId(traceId));
      OpenAiChunks chunks = new OpenAiChunks(turn.reply().turnId(), created, model.id(), model.provider(),
          request.includeUsage());
      Source<TurnFrame, NotUsed> frames = turn.reply().frames().getSource();
      if (request.stream()) {
        return complete(DialectSse.streamOfBytes(MeteredFrames.meter(frames, requestNanos, metrics).mapConcat(chunks::events),
            keepAlive, headers));
      }
      return onSuccess(frames.runWith(Sink.seq(), sessions.system()), list ->
          complete(Json.response(StatusCodes.OK, chunks.completion(list)).addHeaders(headers)));
    });
  }

  private record Started(String sessionId, ChatSession.TurnReply reply) {}

  /** The session the header names, or a new one opened from the request's messages. */
  private CompletionStage<String> session(Principal caller, OpenAiRequest request, Optional<String> header) {
    if (header.isPresent()) {
      return CompletableFuture.completedFuture(sessionId(header.get()));
    }
    String sessionId = UUID.randomUUID().toString();
    return sessions.<ChatSession.SessionAnswer>ask(sessionId, replyTo -> new ChatSession.Open(caller.tenantId(),
            caller.userId().orElse(null), request.persona(), Json.MAPPER.createObjectNode(), null, request.context(),
            replyTo))
        .thenApply(answer -> switch (answer) {
          case ChatSession.SessionReply reply -> reply.session().sessionId();
          case ChatSession.Rejected rejected -> throw OpenAiError.refused(rejected.code(), rejected.message());
        });
  }

  private CompletionStage<ChatSession.TurnReply> start(Principal caller, String sessionId, OpenAiRequest request,
      ModelCatalog.Entry model, String traceId) {
    return sessions.<ChatSession.TurnAnswer>ask(caller, sessionId, replyTo -> new ChatSession.StartTurn(
            request.message(), null, null, List.of(model.id()), traceId, replyTo))
        .thenApply(answer -> switch (answer) {
          case ChatSession.TurnReply reply -> reply;
          case ChatSession.Rejected rejected -> throw OpenAiError.refused(rejected.code(), rejected.message());
        });
  }

  /** A session id is a UUID; anything else names no session, and is answered as a missing one. */
  private static String sessionId(String header) {
    try {
      UUID id = UUID.fromString(header.strip());
      if (id.toString().equalsIgnoreCase(header.strip())) {
        return id.toString();
      }
    } catch (IllegalArgumentException notAUuid) {
      // answered below, as a session that does not exist
    }
    throw OpenAiError.refused("SESSION_NOT_FOUND", "Session not found");
  }

  private static HttpHeader requestId(String traceId) {
    return RawHeader.create("x-request-id", traceId);
  }

  /** {@code GET /v1/models}: every model a turn may run, as {@code provider/model}. */
  record ModelList(String object, List<Model> data) {
    static ModelList of(ModelCatalog catalog) {
      return new ModelList("list", catalog.entries().stream()
          .map(entry -> new Model(entry.id(), "model", 0, entry.provider())).toList());
    }
  }

  record Model(String id, String object, long created, String ownedBy) {}
}
