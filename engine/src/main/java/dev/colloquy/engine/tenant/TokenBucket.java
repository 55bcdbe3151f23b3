package dev.colloquy.engine.tenant;

/**
 * A per-minute rate as a token bucket: it holds at most a minute's worth and refills evenly, so a
 * burst of the whole minute is allowed and then one request every {@code 60 / perMinute} seconds.
 * A changed rate applies from the next request; the tokens held are capped at the new size.
 */
record TokenBucket(double tokens, long updatedAtMillis) {

  /** Time in which an empty bucket refills completely, whatever its rate. */
  static final long REFILL_MILLIS = 60_000;

  static TokenBucket full(int perMinute, long nowMillis) {
    return new TokenBucket(perMinute, nowMillis);
  }

  TokenBucket refilled(int perMinute, long nowMillis) {
    double added = Math.max(0, nowMillis - updatedAtMillis) * perMinute / (double) REFILL_MILLIS;
    return new TokenBucket(Math.min(perMinute, tokens + added), Math.max(nowMillis, updatedAtMillis));
  }

  boolean hasToken() {
    return tokens >= 1;
  }

  TokenBucket taken() {
    return new TokenBucket(tokens - 1, updatedAtMillis);
  }

  /** Whole seconds until a token is there (at least 1), for Retry-After. */
  long secondsUntilToken(int perMinute) {
    double missing = 1 - tokens;
    return Math.max(1, (long) Math.ceil(missing * 60.0 / perMinute));
  }
}
