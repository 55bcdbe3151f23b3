package dev.colloquy.app;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * Streams of the seed dialects, opened as their clients open them: a POST with a JSON body or a GET,
 * with exactly the headers a test names (credential included).
 */
final class SeedStreams {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  private SeedStreams() {}

  /** A POST answered with a 200 event stream; anything else fails the test with its body. */
  static SseClient post(String baseUrl, String path, String body, String... headers) throws Exception {
    return SseClient.open(HTTP, request(baseUrl, path, headers).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
  }

  static SseClient get(String baseUrl, String path, String... headers) throws Exception {
    return SseClient.open(HTTP, request(baseUrl, path, headers).GET().build());
  }

  private static HttpRequest.Builder request(String baseUrl, String path, String... headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(60));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return request;
  }
}
