package dev.colloquy.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Browser origins let in for every tenant, and how long a preflight answer may be cached. An origin
 * may name every subdomain of a host with a leading {@code *.} (e.g. {@code https://*.vercel.app}),
 * as Writing Room deployments allow their preview hosts.
 */
public record CorsSettings(List<String> origins, Duration preflightMaxAge) {

  private static final String WILDCARD_LABEL = "*.";

  static CorsSettings create(SettingsReader reader) {
    List<String> origins = new ArrayList<>();
    origins.addAll(origins(reader, "colloquy.cors.origins"));
    origins.addAll(origins(reader, "colloquy.cors.app-origins"));
    return new CorsSettings(List.copyOf(origins), reader.positiveDuration("colloquy.cors.preflight-max-age"));
  }

  private static List<String> origins(SettingsReader reader, String key) {
    List<String> origins = new ArrayList<>();
    for (String origin : reader.string(key).split(",")) {
      String trimmed = origin.strip();
      if (trimmed.isEmpty()) {
        continue;
      }
      if (!isOrigin(trimmed) && !isSubdomainPattern(trimmed)) {
        throw reader.invalid(key, "must be origins such as https://app.example.com or https://*.example.com"
            + " (no path, no other *), was '" + trimmed + "'");
      }
      origins.add(normalize(trimmed));
    }
    return origins;
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

  /** {@code scheme://*.host[:port]}: an origin whose host's first label is a wildcard and that has no other. */
  static boolean isSubdomainPattern(String value) {
    int hostStart = value.indexOf("://") + 3;
    if (hostStart < 3 || !value.startsWith(WILDCARD_LABEL, hostStart)) {
      return false;
    }
    String rest = value.substring(hostStart + WILDCARD_LABEL.length());
    return !rest.contains("*") && rest.contains(".") && isOrigin(value.substring(0, hostStart) + rest);
  }

  /**
   * Whether {@code origin}, as a browser sends it, is {@code allowed}: the same origin, or, for a
   * subdomain pattern, an origin of the same scheme and port on a subdomain of its host.
   */
  public static boolean allows(String allowed, String origin) {
    String pattern = normalize(allowed);
    String candidate = normalize(origin);
    if (!isSubdomainPattern(pattern)) {
      return pattern.equals(candidate);
    }
    int hostStart = pattern.indexOf("://") + 3;
    String scheme = pattern.substring(0, hostStart);
    String suffix = pattern.substring(hostStart + 1);
    return isOrigin(candidate) && candidate.startsWith(scheme) && candidate.endsWith(suffix)
        && candidate.length() > scheme.length() + suffix.length() && !candidate.substring(scheme.length()).startsWith(".");
  }

  /** Browsers send scheme and host in lower case; so is every origin compared. */
  public static String normalize(String origin) {
    return origin.strip().toLowerCase(Locale.ROOT);
  }
}
