package dev.colloquy.http.auth;

import dev.colloquy.config.AuthSettings;
import dev.colloquy.http.Errors;
import dev.colloquy.persistence.tenant.ApiKeyStore;
import dev.colloquy.persistence.tenant.ApiKeys;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a request's credential into a {@link Principal}: a tenant API key ({@code Authorization:
 * Bearer ck_…} or {@code X-API-Key}, with {@code X-User-Id} to act for one of the tenant's users), a
 * JWT, or the operator's admin token (only on the admin API). No or a bad credential gets 401 with
 * {@code WWW-Authenticate: Bearer}; a good one without the right gets 403.
 */
public final class Authentication extends AllDirectives {

  static final String UNAUTHENTICATED = "UNAUTHENTICATED";
  static final String FORBIDDEN = "FORBIDDEN";
  static final String AUTHENTICATION_UNAVAILABLE = "AUTHENTICATION_UNAVAILABLE";
  static final int MAX_USER_ID_CHARS = 256;

  private static final Logger log = LoggerFactory.getLogger(Authentication.class);

  private final ApiKeyAuthenticator keys;
  private final JwtAuthenticator jwts;
  private final Optional<byte[]> adminToken;
  private final Executor blocking;
  private final PublicKeyScope publicKeys;

  /**
   * {@code tenantIds} maps a tenant's id or name to its id (for JWT tenant claims); it and the key
   * store may block, and are called on {@code blocking}.
   */
  public Authentication(ApiKeyStore keyStore, AuthSettings settings, Optional<String> adminToken,
      Function<String, Optional<String>> tenantIds, Executor blocking) {
    this.keys = new ApiKeyAuthenticator(keyStore, blocking, Clock.systemUTC());
    this.jwts = new JwtAuthenticator(settings, tenantIds, Clock.systemUTC());
    this.adminToken = adminToken.map(token -> ("Bearer " + token).getBytes(StandardCharsets.UTF_8));
    this.blocking = blocking;
    this.publicKeys = PublicKeyScope.closed();
  }

  private Authentication(Authentication base, PublicKeyScope publicKeys) {
    this.keys = base.keys;
    this.jwts = base.jwts;
    this.adminToken = base.adminToken;
    this.blocking = base.blocking;
    this.publicKeys = publicKeys;
  }

  /**
   * This authentication with public keys ({@code cpk_…}, for the widget) accepted from the tenants'
   * {@code allowed_origins}, which {@code allowedOrigins} gives by tenant id. Without it public keys
   * open nothing.
   */
  public Authentication withPublicKeysFrom(Function<String, CompletionStage<List<String>>> allowedOrigins) {
    return new Authentication(this, new PublicKeyScope(allowedOrigins));
  }

  /** {@code inner} with the principal of a tenant key or a user; anything else is refused. */
  public Route principal(String traceId, Function<Principal, Route> inner) {
    return credentials(credentials -> {
      if (isAdminToken(credentials)) {
        return complete(forbidden(traceId, "The admin token opens only the admin API"));
      }
      return onSuccess(authenticate(credentials), outcome -> switch (outcome) {
        case Outcome.Authenticated authenticated -> authenticated.principal().kind() == Principal.Kind.VISITOR
            ? publicKeys.scope(authenticated.principal(), traceId, () -> inner.apply(authenticated.principal()))
            : inner.apply(authenticated.principal());
        case Outcome.Refused refused -> complete(unauthenticated(traceId, refused.reason()));
        case Outcome.Unavailable unavailable -> complete(unavailable(traceId));
      });
    });
  }

  /** {@code inner} for the operator only. */
  public Route admin(String traceId, Supplier<Route> inner) {
    return credentials(credentials -> {
      if (isAdminToken(credentials)) {
        return inner.get();
      }
      return onSuccess(authenticate(credentials), outcome -> switch (outcome) {
        case Outcome.Authenticated authenticated ->
            complete(forbidden(traceId, "The admin API needs the admin token"));
        case Outcome.Refused refused -> complete(unauthenticated(traceId, refused.reason()));
        case Outcome.Unavailable unavailable -> complete(unavailable(traceId));
      });
    });
  }

  /**
   * {@code inner} when the request carries the admin token, for the few routes outside the admin API
   * the operator may use; any other request is passed on to the routes after this one.
   */
  public Route withAdminToken(Supplier<Route> inner) {
    return credentials(credentials -> isAdminToken(credentials) ? inner.get() : reject());
  }

  private Route credentials(Function<Credentials, Route> inner) {
    return optionalHeaderValueByName("Authorization", authorization ->
        optionalHeaderValueByName("X-API-Key", apiKey ->
            optionalHeaderValueByName("X-User-Id", userId ->
                inner.apply(new Credentials(authorization, apiKey, userId)))));
  }

  private boolean isAdminToken(Credentials credentials) {
    return adminToken.isPresent() && credentials.authorization().isPresent() && MessageDigest.isEqual(
        adminToken.get(), credentials.authorization().get().strip().getBytes(StandardCharsets.UTF_8));
  }

  CompletionStage<Outcome> authenticate(Credentials credentials) {
    Optional<String> token = credentials.token();
    if (token.isEmpty()) {
      return CompletableFuture.completedFuture(Outcome.refused(Refusal.MISSING));
    }
    if (token.get().isEmpty()) {
      return CompletableFuture.completedFuture(Outcome.refused(Refusal.MALFORMED));
    }
    if (ApiKeys.looksLikeKey(token.get())) {
      Optional<String> userId = credentials.userId().map(String::strip);
      if (userId.isPresent() && !validUserId(userId.get())) {
        return CompletableFuture.completedFuture(Outcome.refused(Refusal.INVALID_USER_ID));
      }
      // A key seen within the cache's life is checked in place: only a read of the store may block.
      Optional<Outcome> known = keys.authenticateCached(token.get(), userId);
      return known.isPresent() ? CompletableFuture.completedFuture(known.get())
          : CompletableFuture.supplyAsync(() -> keys.authenticate(token.get(), userId), blocking);
    }
    if (credentials.authorization().isEmpty()) {
      // X-API-Key carries keys only.
      return CompletableFuture.completedFuture(Outcome.refused(Refusal.MALFORMED));
    }
    return CompletableFuture.supplyAsync(() -> jwts.authenticate(token.get()), blocking);
  }

  private static boolean validUserId(String userId) {
    return !userId.isEmpty() && userId.length() <= MAX_USER_ID_CHARS && userId.chars().noneMatch(Character::isISOControl);
  }

  private static HttpResponse unauthenticated(String traceId, Refusal reason) {
    log.info("Authentication refused: {}", reason);
    return Errors.response(StatusCodes.UNAUTHORIZED, UNAUTHENTICATED,
            "A valid API key or bearer token is required", traceId)
        .addHeader(RawHeader.create("WWW-Authenticate", "Bearer"));
  }

  /** The key could be good: the client should try again, as after any other 503. */
  private static HttpResponse unavailable(String traceId) {
    return Errors.response(StatusCodes.SERVICE_UNAVAILABLE, AUTHENTICATION_UNAVAILABLE,
            "The credential cannot be checked right now; try again shortly", traceId)
        .addHeader(RawHeader.create("Retry-After", "1"));
  }

  private static HttpResponse forbidden(String traceId, String message) {
    return Errors.response(StatusCodes.FORBIDDEN, FORBIDDEN, message, traceId);
  }
}
