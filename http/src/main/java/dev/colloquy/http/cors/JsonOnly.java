package dev.colloquy.http.cors;

import dev.colloquy.http.Errors;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.MediaType;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * A body sent with POST, PUT or PATCH must be {@code application/json}, except multipart on the upload
 * paths and JSON Lines ({@code application/x-ndjson}) on the journal import path. A web page can send {@code text/plain} or a form to any site without a preflight; requiring
 * JSON means a browser asks first, and CORS decides.
 */
public final class JsonOnly extends AllDirectives {

  static final String UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE";

  private static final Set<String> WITH_BODY = Set.of("POST", "PUT", "PATCH");

  private static final MediaType JSON_LINES = MediaTypes.applicationWithFixedCharset("x-ndjson",
      org.apache.pekko.http.javadsl.model.HttpCharsets.UTF_8);

  private final List<String> multipartPaths;
  private final List<String> jsonLinesPaths;

  /**
   * {@code multipartPaths}: the paths that take {@code multipart/form-data} uploads instead;
   * {@code jsonLinesPaths}: those that take JSON Lines as well as JSON (neither is a type a page may
   * send without a preflight).
   */
  public JsonOnly(List<String> multipartPaths, List<String> jsonLinesPaths) {
    this.multipartPaths = List.copyOf(multipartPaths);
    this.jsonLinesPaths = List.copyOf(jsonLinesPaths);
  }

  public Route route(String traceId, Supplier<Route> inner) {
    return extractRequest(request -> accepted(request) ? inner.get()
        : complete(Errors.response(StatusCodes.UNSUPPORTED_MEDIA_TYPE, UNSUPPORTED_MEDIA_TYPE,
            "The body must be Content-Type: application/json", traceId)));
  }

  boolean accepted(HttpRequest request) {
    if (!WITH_BODY.contains(request.method().name()) || request.entity().isKnownEmpty()) {
      return true;
    }
    var mediaType = request.entity().getContentType().mediaType();
    if (sameType(mediaType, MediaTypes.APPLICATION_JSON)) {
      return true;
    }
    if (sameType(mediaType, JSON_LINES)) {
      return jsonLinesPaths.contains(request.getUri().path());
    }
    return sameType(mediaType, MediaTypes.MULTIPART_FORM_DATA) && multipartPaths.contains(request.getUri().path());
  }

  /** By type and subtype only: a multipart type carries its boundary as a parameter, which equals() compares. */
  private static boolean sameType(MediaType actual, MediaType expected) {
    return actual.mainType().equalsIgnoreCase(expected.mainType()) && actual.subType().equalsIgnoreCase(expected.subType());
  }
}
