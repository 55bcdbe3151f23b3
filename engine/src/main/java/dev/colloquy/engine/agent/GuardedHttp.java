package dev.colloquy.engine.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The tools' outbound HTTP calls (data lookups, web search): each URL passes the {@link EgressGuard}
 * first, redirects are not followed (they could lead past it), each call has its own timeout and
 * reads at most a given number of bytes of the answer. One HTTP client serves them all, made at the
 * first call.
 */
public final class GuardedHttp {

  /** An answer of any status, with its body as text. */
  public record Answer(int status, String body) {
    public boolean ok() {
      return status / 100 == 2;
    }
  }

  /** An answer longer than the caller would read. */
  public static final class TooLarge extends IOException {
    TooLarge(int limit) {
      super("the answer exceeds " + limit + " bytes", null);
    }
  }

  private final EgressGuard guard;
  private final Executor blocking;
  private final LazyHttpClient client =
      new LazyHttpClient(() -> HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build());

  public GuardedHttp(EgressGuard guard, Executor blocking) {
    this.guard = guard;
    this.blocking = blocking;
  }

  /**
   * POSTs {@code json} to {@code url}. Fails with {@link EgressGuard.Refused} when the guard refuses
   * the URL, {@link java.net.http.HttpTimeoutException} when no answer came within {@code timeout},
   * {@link TooLarge} past {@code maxBytes}, another {@link IOException} when the call failed.
   */
  public CompletionStage<Answer> postJson(URI url, Map<String, String> headers, String json, Duration timeout,
      int maxBytes) {
    // The guard resolves the host name, which may block: not on the caller's thread.
    return CompletableFuture.runAsync(() -> {
      try {
        guard.check(url);
      } catch (EgressGuard.Refused refused) {
        throw new CompletionException(refused);
      }
    }, blocking).thenCompose(checked -> send(url, headers, json, timeout, maxBytes));
  }

  private CompletableFuture<Answer> send(URI url, Map<String, String> headers, String json, Duration timeout,
      int maxBytes) {
    HttpRequest.Builder request = HttpRequest.newBuilder(url)
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .header("User-Agent", "Colloquy-Tools")
        .POST(HttpRequest.BodyPublishers.ofString(json));
    headers.forEach(request::header);
    return client.get().sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream())
        .thenApplyAsync(response -> new Answer(response.statusCode(), read(response.body(), maxBytes)), blocking);
  }

  private static String read(InputStream body, int maxBytes) {
    try (body) {
      byte[] bytes = body.readNBytes(maxBytes + 1);
      if (bytes.length > maxBytes) {
        throw new CompletionException(new TooLarge(maxBytes));
      }
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
