package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.bench.BenchDialect.Target;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.stream.Stream;

/**
 * The requests a bench dialect sends as its seed's client would: JSON bodies, the credential in the
 * header the dialect reads it from, and a refusal of any answer but the one the contract gives, naming
 * the request and quoting what the node said.
 */
final class BenchRequests {

  static final String AUTHORIZATION = "Authorization";

  private BenchRequests() {}

  /** A POST of {@code body} as JSON to {@code path}, with the target's {@code Authorization}. */
  static HttpRequest.Builder postJson(Target target, String path, String body) {
    return postJson(target, path, body, AUTHORIZATION, target.authorization());
  }

  /** A POST of {@code body} as JSON to {@code path}, with the credential {@code value} in {@code header}. */
  static HttpRequest.Builder postJson(Target target, String path, String body, String header, String value) {
    return HttpRequest.newBuilder(URI.create(target.base() + path)).header("Content-Type", "application/json")
        .header(header, value).POST(HttpRequest.BodyPublishers.ofString(body));
  }

  /** Sends {@code request} and reads its JSON answer; fails unless the status is {@code expected}. */
  static JsonNode send(Target target, HttpRequest.Builder request, int expected, String what) throws Exception {
    HttpResponse<String> response = target.client().send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != expected) {
      throw new IllegalStateException(what + ": " + response.statusCode() + " " + response.body());
    }
    return Json.MAPPER.readTree(response.body());
  }

  /** Sends {@code request} and gives its body's lines as they arrive; fails unless the status is 200. */
  static Iterator<String> stream(Target target, HttpRequest.Builder request, String what) throws Exception {
    HttpResponse<Stream<String>> response = target.client().send(request.build(), HttpResponse.BodyHandlers.ofLines());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(what + ": HTTP " + response.statusCode());
    }
    return response.body().iterator();
  }
}
