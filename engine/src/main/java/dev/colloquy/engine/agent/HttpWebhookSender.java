package dev.colloquy.engine.agent;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Posts webhooks with the JDK's HTTP client and the Standard Webhooks headers, after the egress
 * guard has let the URL through. Redirects are not followed: they could lead past the guard.
 */
public final class HttpWebhookSender implements WebhookSender {

  private final EgressGuard guard;
  private final Duration timeout;
  private final LazyHttpClient client;

  public HttpWebhookSender(EgressGuard guard, Duration timeout) {
    this.guard = guard;
    this.timeout = timeout;
    this.client = new LazyHttpClient(
        () -> HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build());
  }

  @Override
  public CompletionStage<Void> send(URI url, String webhookId, long timestamp, String signature, String body) {
    try {
      guard.check(url);
    } catch (EgressGuard.Refused refused) {
      return CompletableFuture.failedFuture(new CompletionException("refused: " + refused.getMessage(), refused));
    }
    HttpRequest request = HttpRequest.newBuilder(url)
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .header("User-Agent", "Colloquy-Webhooks")
        .header("webhook-id", webhookId)
        .header("webhook-timestamp", Long.toString(timestamp))
        .header("webhook-signature", signature)
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
    return client.get().sendAsync(request, HttpResponse.BodyHandlers.discarding()).thenApply(response -> {
      if (response.statusCode() / 100 != 2) {
        throw new CompletionException(new IllegalStateException("the receiver answered HTTP " + response.statusCode()));
      }
      return null;
    });
  }
}
