package dev.colloquy.http.dialect;

import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;

/**
 * The Edge contract's trace id: a UUID, the caller's when it sends one — the trace id of a W3C
 * {@code traceparent}, else {@code X-Request-Id}, else {@code X-Trace-Id}, each taken when it is a
 * UUID or 32 hex digits — and a new one otherwise.
 */
final class EdgeTraceIds {

  private static final String[] HEADERS = {"traceparent", "X-Request-Id", "X-Trace-Id"};
  private static final String NO_TRACE = "0".repeat(32);

  private EdgeTraceIds() {}

  static String of(HttpRequest request) {
    for (String header : HEADERS) {
      Optional<String> traceId = request.getHeader(header).map(HttpHeader::value).flatMap(value ->
          header.equals("traceparent") ? fromTraceparent(value) : uuid(value));
      if (traceId.isPresent()) {
        return traceId.get();
      }
    }
    return UUID.randomUUID().toString();
  }

  /** {@code version-traceid-parentid-flags}; an all-zero trace id is invalid (W3C Trace Context). */
  static Optional<String> fromTraceparent(String value) {
    String[] parts = value.strip().split("-");
    return parts.length >= 4 && parts[1].length() == 32 && !parts[1].equals(NO_TRACE) ? uuid(parts[1]) : Optional.empty();
  }

  static Optional<String> uuid(String value) {
    String candidate = value.strip().toLowerCase(Locale.ROOT);
    if (candidate.length() == 32 && candidate.chars().allMatch(HexFormat::isHexDigit)) {
      candidate = candidate.substring(0, 8) + "-" + candidate.substring(8, 12) + "-" + candidate.substring(12, 16) + "-"
          + candidate.substring(16, 20) + "-" + candidate.substring(20);
    }
    return DialectBodies.isUuid(candidate) ? Optional.of(candidate) : Optional.empty();
  }
}
