package dev.colloquy.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /openapi.yaml}: the OpenAPI description of the HTTP API, read once from the classpath
 * when the routes are built, so a missing document stops the start instead of failing a request.
 */
public final class OpenApiRoutes extends AllDirectives {

  /** Where the document lives on the classpath (http/src/main/resources). */
  public static final String RESOURCE = "/openapi.yaml";

  /** {@code application/yaml} (RFC 9512), always UTF-8, so no charset parameter is sent. */
  public static final ContentType APPLICATION_YAML =
      MediaTypes.applicationWithFixedCharset("yaml", HttpCharsets.UTF_8, "yaml", "yml").toContentType();

  private static final Pattern INFO_VERSION = Pattern.compile("(?m)^info:\\n(?:  .*\\n)*?  version: (\\S+)$");

  private final HttpEntity.Strict document;

  public OpenApiRoutes() {
    this.document = HttpEntities.create(APPLICATION_YAML, read());
  }

  public Route route() {
    return path("openapi.yaml", () -> get(() -> complete(HttpResponse.create().withEntity(document))));
  }

  /** The API's version, as the document's {@code info.version} gives it. */
  static String version() {
    Matcher version = INFO_VERSION.matcher(new String(read(), StandardCharsets.UTF_8));
    if (!version.find()) {
      throw new IllegalStateException("The OpenAPI document " + RESOURCE + " names no info.version");
    }
    return version.group(1);
  }

  /** The document's bytes, as served. */
  static byte[] read() {
    try (InputStream in = OpenApiRoutes.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("The OpenAPI document " + RESOURCE + " is missing from the classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("The OpenAPI document " + RESOURCE + " cannot be read", e);
    }
  }
}
