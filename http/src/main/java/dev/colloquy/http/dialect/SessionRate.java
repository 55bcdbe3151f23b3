package dev.colloquy.http.dialect;

import dev.colloquy.engine.tenant.HostedLimiters;
import dev.colloquy.engine.tenant.TenantLimiter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The Edge contract's per-session rate limit: a token bucket per session and endpoint, kept by the
 * tenant's {@link TenantLimiter} like every other limit, so it holds across the cluster. It comes on
 * top of the tenant's own limits, which every request meets first.
 */
final class SessionRate {

  private final HostedLimiters limits;
  private final int perMinute;
  private final Duration askTimeout;

  SessionRate(ActorSystem<?> system, int perMinute, Duration askTimeout) {
    this.limits = HostedLimiters.get(system);
    this.perMinute = perMinute;
    this.askTimeout = askTimeout;
  }

  /** Completes when the session may make one more request to {@code endpoint}; fails with a 429 or 503 refusal otherwise. */
  CompletionStage<Void> admit(String tenantId, String endpoint, String sessionId) {
    TenantLimiter.Take take = new TenantLimiter.Take("edge-" + endpoint + "/session:" + sessionId, perMinute);
    return limits.acquire(tenantId, List.of(take), null, 0, askTimeout)
        .handle((verdict, failure) -> {
          if (failure != null) {
            throw new DialectRefusal(StatusCodes.SERVICE_UNAVAILABLE, "LIMITS_UNAVAILABLE",
                "The session's rate limit could not be checked in time; try again", 5);
          }
          return switch (verdict) {
            case TenantLimiter.Allowed allowed -> null;
            case TenantLimiter.Refused refused -> throw new DialectRefusal(StatusCodes.TOO_MANY_REQUESTS, refused.code(),
                "This session makes requests too fast: " + refused.message(), refused.retryAfterSeconds());
          };
        });
  }
}
