package dev.colloquy.config;

import java.time.Duration;

/** The HTTP server: where it listens and the limits it applies to requests and streams. */
public record HttpSettings(
    String host, int port, long maxMessageBytes, Duration keepAlive, Duration askTimeout) {

  static HttpSettings create(SettingsReader reader) {
    return new HttpSettings(
        reader.string("colloquy.http.host"),
        reader.intInRange("colloquy.http.port", 0, 65535),
        reader.bytes("colloquy.http.max-message-bytes", 1),
        reader.positiveDuration("colloquy.http.keep-alive"),
        reader.positiveDuration("colloquy.http.ask-timeout"));
  }
}
