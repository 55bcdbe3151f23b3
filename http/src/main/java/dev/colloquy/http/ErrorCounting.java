package dev.colloquy.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;

/**
 * Counts every error response by its code, read from the error body of API.md that every failure
 * path builds, so that no path (exception, rejection, refused turn) can be missed.
 */
final class ErrorCounting {

  private ErrorCounting() {}

  static HttpResponse count(HttpResponse response, HttpMetrics metrics) {
    int status = response.status().intValue();
    if (status >= 400) {
      metrics.errorResponse(status, code(response));
    }
    return response;
  }

  private static String code(HttpResponse response) {
    if (response.entity() instanceof HttpEntity.Strict strict
        && strict.getContentType().equals(ContentTypes.APPLICATION_JSON)) {
      try {
        JsonNode code = Json.MAPPER.readTree(strict.getData().toArray()).path("error").path("code");
        if (code.isTextual()) {
          return code.asText();
        }
      } catch (java.io.IOException e) {
        // not an error body; counted under its status below
      }
    }
    return "HTTP_" + response.status().intValue();
  }
}
