package dev.colloquy.http.limits;

import dev.colloquy.engine.tenant.HostedLimiters;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantLimiter;
import dev.colloquy.engine.tenant.TenantUsage;
import dev.colloquy.http.Errors;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.http.tenant.TenantConfigs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Accept;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The {@link #limited} directive: a request goes on only when its tenant's limits let it. Rates are
 * kept by the tenant's {@link TenantLimiter} entity, quotas are read from {@link TenantUsage}, and the
 * limits themselves come from the tenant's configuration at the time of the request.
 */
public final class RateLimits extends AllDirectives {

  private final TenantConfigs configs;
  private final TenantUsage usage;
  private final ClusterSharding sharding;
  private final HostedLimiters hosted;
  private final Duration askTimeout;
  private final Clock clock;

  public RateLimits(ActorSystem<?> system, TenantConfigs configs, TenantUsage usage, Duration askTimeout, Clock clock) {
    this.configs = configs;
    this.usage = usage;
    this.sharding = ClusterSharding.get(system);
    this.hosted = HostedLimiters.get(system);
    this.askTimeout = askTimeout;
    this.clock = clock;
  }

  /** {@link #limited} for an authenticated request, of the kind its method, path and Accept make it. */
  public Route limited(Principal principal, String traceId, Supplier<Route> inner) {
    return extractRequest(request -> limited(principal.tenantId(), principal.credentialId(),
        principal.userId().orElse(null), kindOf(request), traceId, inner));
  }

  /** The seed dialects' routes that open sessions, run turns or stream them, by method and path. */
  private static final Map<String, LimitKind> DIALECT_KINDS = Map.of(
      "POST /chat/stream", LimitKind.STREAM,
      "POST /functions/v1/chat", LimitKind.STREAM,
      "POST /v1/session/start", LimitKind.SESSION,
      "POST /v1/chat/message", LimitKind.TURN,
      "GET /v1/chat/message/stream", LimitKind.STREAM);

  static LimitKind kindOf(HttpRequest request) {
    LimitKind dialect = DIALECT_KINDS.get(request.method().name() + " " + request.getUri().path());
    if (dialect != null) {
      return dialect;
    }
    List<String> path = Arrays.stream(request.getUri().path().split("/")).filter(part -> !part.isEmpty()).toList();
    boolean sessions = path.size() >= 2 && path.get(0).equals("v1") && path.get(1).equals("sessions");
    if (sessions && request.method().equals(HttpMethods.POST) && (path.size() == 2
        || path.size() == 3 && path.get(2).equals("import") || path.size() == 4 && path.get(3).equals("fork"))) {
      return LimitKind.SESSION;
    }
    if (sessions && request.method().equals(HttpMethods.POST) && path.size() == 4 && path.get(3).equals("turns")) {
      boolean events = request.getHeader(Accept.class)
          .map(accept -> accept.value().toLowerCase(Locale.ROOT).contains("text/event-stream")).orElse(false);
      return events ? LimitKind.STREAM : LimitKind.TURN;
    }
    if (sessions && request.method().equals(HttpMethods.GET) && path.size() == 6 && path.get(3).equals("turns")
        && path.get(5).equals("events")) {
      return LimitKind.STREAM;
    }
    // The OpenAI dialect's completion is a turn that holds its model call, streamed or not, until it ends.
    if (request.method().equals(HttpMethods.POST) && path.equals(List.of("v1", "chat", "completions"))) {
      return LimitKind.STREAM;
    }
    // The fan-out dialect: a conversation is a session, its turns are turns, a turn's stream a stream.
    boolean conversations = path.size() >= 2 && path.get(0).equals("v1") && path.get(1).equals("conversations");
    if (conversations && request.method().equals(HttpMethods.POST)) {
      return path.size() == 2 ? LimitKind.SESSION : path.size() == 4 && path.get(3).equals("turns") ? LimitKind.TURN
          : LimitKind.REQUEST;
    }
    if (request.method().equals(HttpMethods.GET) && path.size() == 4 && path.get(0).equals("v1")
        && path.get(1).equals("turns") && path.get(3).equals("stream")) {
      return LimitKind.STREAM;
    }
    return LimitKind.REQUEST;
  }

  /**
   * Runs {@code inner} if the request is within its limits, else answers 429 {@code RATE_LIMITED} or
   * {@code QUOTA_EXCEEDED} with {@code Retry-After}. {@code credentialId} is the API key's id or the
   * JWT's user; {@code userId} the end user, or null when the credential acts for the whole tenant.
   */
  public Route limited(String tenantId, String credentialId, String userId, LimitKind kind, String traceId,
      Supplier<Route> inner) {
    String streamId = kind == LimitKind.STREAM ? UUID.randomUUID().toString() : null;
    return onComplete(admit(tenantId, credentialId, userId, kind, streamId), verdict -> {
      if (verdict.isFailure()) {
        return complete(Errors.response(StatusCodes.SERVICE_UNAVAILABLE, "LIMITS_UNAVAILABLE",
            "The tenant's limits could not be checked in time; try again", traceId));
      }
      return switch (verdict.get()) {
        case TenantLimiter.Refused refused -> complete(tooMany(refused, traceId));
        case TenantLimiter.Allowed allowed -> streamId == null
            ? inner.get()
            : mapResponse(response -> releasedAtEnd(response, tenantId, streamId), inner);
      };
    });
  }

  private CompletionStage<TenantLimiter.Verdict> admit(String tenantId, String credentialId, String userId,
      LimitKind kind, String streamId) {
    return configs.current(tenantId).thenCompose(current -> {
      TenantConfig config = current.config();
      return quota(tenantId, config, kind).thenCompose(refused -> {
        if (refused != null) {
          return CompletableFuture.completedFuture(refused);
        }
        return hosted.acquire(tenantId, takes(config, credentialId, userId, kind), streamId,
            config.maxConcurrentStreams(), askTimeout);
      });
    });
  }

  static List<TenantLimiter.Take> takes(TenantConfig config, String credentialId, String userId, LimitKind kind) {
    List<TenantLimiter.Take> takes = new ArrayList<>();
    boolean turn = kind == LimitKind.TURN || kind == LimitKind.STREAM;
    for (String who : userId == null ? List.of("credential:" + credentialId)
        : List.of("credential:" + credentialId, "user:" + userId)) {
      takes.add(new TenantLimiter.Take("requests/" + who, config.requestsPerMinute()));
      if (turn) {
        takes.add(new TenantLimiter.Take("turns/" + who, config.turnsPerMinute()));
      }
    }
    return takes;
  }

  /** The quota {@code kind} would exceed, or null. */
  private CompletionStage<TenantLimiter.Verdict> quota(String tenantId, TenantConfig config, LimitKind kind) {
    return switch (kind) {
      case REQUEST -> CompletableFuture.completedFuture(null);
      case SESSION -> usage.openSessions(tenantId).thenApply(open -> open >= config.maxOpenSessions()
          ? new TenantLimiter.Refused(TenantLimiter.QUOTA_EXCEEDED, "The tenant has " + open
              + " open sessions, its limit; close one first", SESSION_RETRY_SECONDS)
          : null);
      case TURN, STREAM -> tokenBudget(tenantId, config);
    };
  }

  /** A client over the session quota can only wait for sessions to close or go idle; a minute is a fair guess. */
  static final long SESSION_RETRY_SECONDS = 60;

  private CompletionStage<TenantLimiter.Verdict> tokenBudget(String tenantId, TenantConfig config) {
    if (config.monthlyTokenBudget() == 0) {
      return CompletableFuture.completedFuture(null);
    }
    Instant now = clock.instant();
    YearMonth month = YearMonth.from(now.atZone(ZoneOffset.UTC));
    return usage.tokensUsed(tenantId, month).thenApply(used -> used >= config.monthlyTokenBudget()
        ? new TenantLimiter.Refused(TenantLimiter.QUOTA_EXCEEDED, "The tenant has used its " + config.monthlyTokenBudget()
            + " tokens of this month", secondsUntil(now, month.plusMonths(1)))
        : null);
  }

  private static long secondsUntil(Instant now, YearMonth month) {
    Instant start = month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    return Math.max(1, Duration.between(now, start).toSeconds());
  }

  private EntityRef<TenantLimiter.Command> limiter(String tenantId) {
    return sharding.entityRefFor(TenantLimiter.ENTITY_KEY, tenantId);
  }

  private HttpResponse releasedAtEnd(HttpResponse response, String tenantId, String streamId) {
    if (response.entity().isStrict() || response.entity().isKnownEmpty()) {
      limiter(tenantId).tell(new TenantLimiter.ReleaseStream(streamId));
      return response;
    }
    return response.withEntity(HttpEntities.createChunked(response.entity().getContentType(),
        response.entity().getDataBytes().watchTermination((notUsed, done) -> {
          done.whenComplete((Done ok, Throwable failure) ->
              limiter(tenantId).tell(new TenantLimiter.ReleaseStream(streamId)));
          return notUsed;
        })));
  }

  static HttpResponse tooMany(TenantLimiter.Refused refused, String traceId) {
    return Errors.response(StatusCodes.TOO_MANY_REQUESTS, refused.code(), refused.message(), traceId)
        .removeHeader("Retry-After")
        .addHeader(RawHeader.create("Retry-After", String.valueOf(refused.retryAfterSeconds())));
  }
}
