package dev.colloquy.http.dialect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.http.Json;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Refusals that come before a dialect's routes (no credential, a rate limit, a body that is not JSON,
 * an unknown path, a node shutting down) are answered by the layers every request passes, in the
 * canonical error shape of API.md. On a dialect's paths this words them in the dialect's own shape, with
 * the same status and headers, so that its clients see one shape whatever refused them.
 */
public final class ErrorShapes extends AllDirectives {

  /** A refusal in the canonical shape: {@code {"error": {"code", "message", "trace_id"}}} with its status. */
  public record CanonicalError(int status, String code, String message, String traceId) {}

  /** One dialect's shape: the paths it covers, and a canonical refusal as the dialect words it. */
  public interface Shape {

    boolean covers(String path);

    HttpResponse reword(HttpResponse canonical, CanonicalError error);
  }

  private final List<Shape> shapes;

  public ErrorShapes(List<Shape> shapes) {
    this.shapes = List.copyOf(shapes);
  }

  public Route route(Supplier<Route> inner) {
    return extractUri(uri -> shapes.stream().filter(shape -> shape.covers(uri.path())).findFirst()
        .map(shape -> mapResponse(response -> canonical(response)
            .map(error -> shape.reword(response, error)).orElse(response), inner))
        .orElseGet(inner));
  }

  /** The canonical refusal a response holds; a success, a stream or a body in another shape holds none. */
  static Optional<CanonicalError> canonical(HttpResponse response) {
    if (response.status().intValue() < 400 || !(response.entity() instanceof HttpEntity.Strict strict)) {
      return Optional.empty();
    }
    try {
      JsonNode error = Json.MAPPER.readTree(strict.getData().utf8String()).path("error");
      if (!error.path("code").isTextual() || !error.has("trace_id")) {
        return Optional.empty();
      }
      return Optional.of(new CanonicalError(response.status().intValue(), error.path("code").asText(),
          error.path("message").asText(), error.path("trace_id").asText()));
    } catch (JsonProcessingException notJson) {
      return Optional.empty();
    }
  }
}
