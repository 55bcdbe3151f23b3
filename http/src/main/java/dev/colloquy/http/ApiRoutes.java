package dev.colloquy.http;

import java.util.HexFormat;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import dev.colloquy.http.auth.Authentication;
import dev.colloquy.http.auth.Principal;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.MalformedRequestContentRejection;
import org.apache.pekko.http.javadsl.server.MethodRejection;
import org.apache.pekko.http.javadsl.server.MissingFormFieldRejection;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.UnsupportedRequestContentTypeRejection;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.apache.pekko.http.javadsl.server.RejectionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole HTTP API: every route family behind one trace id per request and one mapping of
 * failures to the error body of API.md. No stack trace ever reaches a client.
 */
public final class ApiRoutes extends AllDirectives {

  private static final Logger log = LoggerFactory.getLogger(ApiRoutes.class);

  private final SessionRoutes sessions;
  private final SessionListRoutes sessionList;
  private final JournalRoutes journal;
  private final HealthRoutes health;
  private final Function<Principal, Route> knowledge;
  private final Authentication authentication;
  private final Function<String, Route> admin;
  private final OpenApiRoutes openApi = new OpenApiRoutes();
  private final Observability observability;
  private final MetricsRoutes metrics;
  private final JournalGate journalGate;
  private final ShutdownGate shutdownGate;

  public ApiRoutes(SessionRoutes sessions, SessionListRoutes sessionList, JournalRoutes journal, HealthRoutes health,
      Function<Principal, Route> knowledge, Authentication authentication) {
    this(sessions, sessionList, journal, health, knowledge, authentication, traceId -> new AllDirectives() { }.reject(),
        Observability.none(), () -> true);
  }

  /**
   * {@code admin} serves {@code /v1/admin} once the admin token has been checked; {@code acceptingTurns}
   * turns false when the node begins to shut down.
   */
  public ApiRoutes(SessionRoutes sessions, SessionListRoutes sessionList, JournalRoutes journal, HealthRoutes health,
      Function<Principal, Route> knowledge, Authentication authentication, Function<String, Route> admin,
      Observability observability, BooleanSupplier acceptingTurns) {
    this.sessions = sessions;
    this.sessionList = sessionList;
    this.journal = journal;
    this.health = health;
    this.knowledge = knowledge;
    this.authentication = authentication;
    this.admin = admin;
    this.observability = observability;
    this.metrics = new MetricsRoutes(observability.scrape());
    this.journalGate = new JournalGate(observability.journalReachable());
    this.shutdownGate = new ShutdownGate(acceptingTurns);
  }

  public Route route() {
    return extractRequest(request -> {
      String traceId = newTraceId();
      return mapResponse(response -> ErrorCounting.count(response, observability.metrics()),
          () -> handleExceptions(exceptions(traceId), () -> handleRejections(rejections(traceId), () ->
              concat(health.route(), metrics.route(), openApi.route(),
                  pathPrefixTest(PathMatchers.segment("v1").slash("admin"),
                      () -> authentication.admin(traceId, () -> admin.apply(traceId))),
                  authentication.principal(traceId, principal -> owned(traceId, principal))))));
    });
  }

  /** Every route that needs a credential, scoped to the caller's tenant. */
  private Route owned(String traceId, Principal principal) {
    return concat(journal.route(principal), knowledge.apply(principal), sessionList.route(principal),
        pathPrefixTest(PathMatchers.segment("v1").slash("sessions"),
            () -> shutdownGate.newTurns(() -> journalGate.writes(() -> sessions.route(traceId, principal)))));
  }

  static String newTraceId() {
    byte[] bytes = new byte[16];
    ThreadLocalRandom.current().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private ExceptionHandler exceptions(String traceId) {
    return ExceptionHandler.newBuilder()
        .matchAny(error -> {
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          if (cause instanceof ApiException api) {
            return complete(Errors.of(api, traceId));
          }
          if (cause instanceof EntityStreamSizeException tooLarge) {
            return complete(tooLarge(tooLarge, traceId));
          }
          if (observability.logContent()) {
            log.error("Request failed (trace {})", traceId, cause);
          } else {
            // An unexpected failure's message may quote what the client sent.
            log.error("Request failed (trace {}): {}", traceId, cause.getClass().getName());
          }
          return complete(Errors.response(StatusCodes.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR",
              "The server could not complete the request", traceId));
        })
        .build();
  }

  private static org.apache.pekko.http.javadsl.model.HttpResponse tooLarge(EntityStreamSizeException e, String traceId) {
    return Errors.response(StatusCodes.PAYLOAD_TOO_LARGE, "REQUEST_TOO_LARGE",
        "The request body is larger than the limit of " + e.limit() + " bytes", traceId);
  }

  private RejectionHandler rejections(String traceId) {
    return RejectionHandler.newBuilder()
        .handleAll(MethodRejection.class, rejected -> complete(Errors.response(StatusCodes.METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED", "Method not allowed here; use " + rejected.get(0).supported().value(), traceId)))
        .handle(MissingFormFieldRejection.class, rejected -> complete(Errors.response(StatusCodes.BAD_REQUEST,
            "FIELD_REQUIRED", "The multipart form field '" + rejected.fieldName() + "' is required", traceId)))
        .handleAll(UnsupportedRequestContentTypeRejection.class, rejected -> complete(Errors.response(
            StatusCodes.UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE",
            "Unsupported Content-Type; expected " + rejected.get(0).getSupported(), traceId)))
        .handle(MalformedRequestContentRejection.class, rejected -> complete(
            rejected.getCause() instanceof EntityStreamSizeException tooLarge
                ? tooLarge(tooLarge, traceId)
                : Errors.response(StatusCodes.BAD_REQUEST, "MALFORMED_REQUEST", rejected.message(), traceId)))
        .handleNotFound(complete(Errors.response(StatusCodes.NOT_FOUND, "NOT_FOUND", "No such endpoint", traceId)))
        .build()
        .withFallback(RejectionHandler.defaultHandler())
        .mapRejectionResponse(response -> {
          if (response.entity().getContentType().equals(org.apache.pekko.http.javadsl.model.ContentTypes.APPLICATION_JSON)) {
            return response;
          }
          String message = response.entity() instanceof org.apache.pekko.http.javadsl.model.HttpEntity.Strict strict
              ? strict.getData().utf8String() : "The request was rejected";
          return Errors.response(response.status(), "BAD_REQUEST", message, traceId);
        });
  }
}
