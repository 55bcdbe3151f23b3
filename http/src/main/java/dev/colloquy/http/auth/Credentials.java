package dev.colloquy.http.auth;

import java.util.Optional;

/** The credential headers of a request, as sent. */
record Credentials(Optional<String> authorization, Optional<String> apiKey, Optional<String> userId) {

  private static final String BEARER = "bearer ";

  /** The presented token: the bearer token, else the X-API-Key value. */
  Optional<String> token() {
    if (authorization.isPresent()) {
      String value = authorization.get().strip();
      if (value.length() > BEARER.length() && value.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
        return Optional.of(value.substring(BEARER.length()).strip());
      }
      return Optional.of("");
    }
    return apiKey.map(String::strip);
  }

  @Override
  public String toString() {
    return "Credentials[...]";
  }
}
