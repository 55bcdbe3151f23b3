package dev.colloquy.http.dialect;

import java.util.Locale;
import java.util.Set;

/**
 * The Edge contract's error codes, lower-case as it writes them: {@code bad_request} for a request that
 * cannot be read as it is, and every other code of API.md in lower case ({@code session_not_found},
 * {@code turn_in_progress}, {@code unknown_model}, {@code rate_limited}, …).
 */
final class EdgeCodes {

  static final String BAD_REQUEST = "bad_request";

  private static final Set<String> BAD_REQUESTS = Set.of("MALFORMED_JSON", "MALFORMED_REQUEST", "BAD_REQUEST",
      "FIELD_REQUIRED", "INVALID_FIELD", "MESSAGE_REQUIRED", "EMPTY_MESSAGE", "INVALID_LAST_EVENT_ID");

  private EdgeCodes() {}

  static String of(String code) {
    return BAD_REQUESTS.contains(code) ? BAD_REQUEST : code.toLowerCase(Locale.ROOT);
  }
}
