package dev.colloquy.config;

import java.time.Duration;

/** The HTTP server: where it listens and the limits it applies to requests and streams. */
public record HttpSettings(
    String host, int port, long maxMessageBytes, Duration keepAlive, Duration askTimeout, Duration requestHeadTimeout,
    Duration requestBodyTimeout) {

  /**
   * The largest chat message a node may be configured to take: a turn's message crosses to its
   * session's node inside one cluster message, which must stay well within the cluster's frame size.
   */
  public static final long MAX_MESSAGE_BYTES = 128 * 1024;

  /** Without a configured host, development listens on loopback only: its data is open to its key holder. */
  static HttpSettings create(SettingsReader reader, Environment env) {
    String host = reader.optionalString("colloquy.http.host")
        .orElse(env == Environment.PRODUCTION ? "0.0.0.0" : "127.0.0.1");
    return new HttpSettings(
        host,
        reader.intInRange("colloquy.http.port", 0, 65535),
        reader.bytes("colloquy.http.max-message-bytes", 1, MAX_MESSAGE_BYTES),
        reader.positiveDuration("colloquy.http.keep-alive"),
        reader.positiveDuration("colloquy.http.ask-timeout"),
        reader.positiveDuration("colloquy.http.request-head-timeout"),
        reader.positiveDuration("colloquy.http.request-body-timeout"));
  }
}
