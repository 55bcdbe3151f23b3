package dev.colloquy.engine.agent;

import java.net.http.HttpClient;
import java.util.function.Supplier;

/**
 * A JDK HTTP client made at its first use. Building one sets up the JDK's TLS and reads its trust store,
 * tens of milliseconds that a node's start would otherwise spend on clients it may never use (webhooks,
 * the tools' calls).
 */
final class LazyHttpClient {

  private final Supplier<HttpClient> build;
  private volatile HttpClient client;

  LazyHttpClient(Supplier<HttpClient> build) {
    this.build = build;
  }

  HttpClient get() {
    HttpClient current = client;
    if (current == null) {
      synchronized (this) {
        if (client == null) {
          client = build.get();
        }
        current = client;
      }
    }
    return current;
  }
}
