package dev.colloquy.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Browser origins let in for every tenant, and how long a preflight answer may be cached. */
public record CorsSettings(List<String> origins, Duration preflightMaxAge) {

  static CorsSettings create(SettingsReader reader) {
    List<String> origins = new ArrayList<>();
    for (String origin : reader.string("colloquy.cors.origins").split(",")) {
      String trimmed = origin.strip();
      if (trimmed.isEmpty()) {
        continue;
      }
      if (!isOrigin(trimmed)) {
        throw reader.invalid("colloquy.cors.origins",
            "must be origins such as https://app.example.com (no path, no *), was '" + trimmed + "'");
      }
      origins.add(normalize(trimmed));
    }
    return new CorsSettings(List.copyOf(origins), reader.positiveDuration("colloquy.cors.preflight-max-age"));
  }

  /** Whether {@code value} is a serialized origin: http or https, a host, an optional port, nothing else. */
  public static boolean isOrigin(String value) {
    try {
      URI uri = new URI(value);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      return (scheme.equals("http") || scheme.equals("https"))
          && uri.getHost() != null
          && uri.getRawUserInfo() == null
          && (uri.getRawPath() == null || uri.getRawPath().isEmpty())
          && uri.getRawQuery() == null
          && uri.getRawFragment() == null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  /** Browsers send scheme and host in lower case; so is every origin compared. */
  public static String normalize(String origin) {
    return origin.strip().toLowerCase(Locale.ROOT);
  }
}
