package dev.colloquy.persistence.readside;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

/**
 * Where a page of the session list ends: the last row's activity time and id (the list's keyset).
 * Clients see it only as an opaque string.
 */
public record SessionCursor(Instant lastActivityAt, String sessionId) {

  public String encode() {
    String plain = lastActivityAt.getEpochSecond() + "." + lastActivityAt.getNano() + "|" + sessionId;
    return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  /** The cursor a client sent back, or empty when it is not one this server made. */
  public static Optional<SessionCursor> decode(String cursor) {
    try {
      String plain = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      int bar = plain.indexOf('|');
      int dot = plain.indexOf('.');
      if (bar < 0 || dot < 0 || dot > bar || bar == plain.length() - 1) {
        return Optional.empty();
      }
      Instant at = Instant.ofEpochSecond(Long.parseLong(plain.substring(0, dot)), Long.parseLong(plain.substring(dot + 1, bar)));
      return Optional.of(new SessionCursor(at, plain.substring(bar + 1)));
    } catch (IllegalArgumentException | java.time.DateTimeException | ArithmeticException e) {
      return Optional.empty();
    }
  }
}
