package dev.colloquy.app.cli;

import dev.colloquy.app.Failures;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;

/** Requests from the command line to a running Colloquy: a server that cannot be reached is one line naming it. */
final class ServerRequests {

  private ServerRequests() {}

  static HttpResponse<String> send(HttpClient client, HttpRequest request) throws InterruptedException {
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("cannot reach Colloquy at " + origin(request.uri()) + ": " + reason(e), e);
    }
  }

  /** The request with the tenant's key as a bearer credential; without a key it goes bare and is refused. */
  static HttpRequest.Builder withApiKey(HttpRequest.Builder request, String apiKey) {
    return apiKey == null || apiKey.isBlank() ? request : request.header("Authorization", "Bearer " + apiKey.strip());
  }

  private static String origin(URI uri) {
    return uri.getScheme() + "://" + uri.getAuthority();
  }

  private static String reason(IOException e) {
    if (e instanceof ConnectException) {
      return "nothing is listening there (is the server running?)";
    }
    if (e instanceof HttpTimeoutException) {
      return "it did not answer in time";
    }
    return Failures.describe(e);
  }
}
