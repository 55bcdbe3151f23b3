package dev.colloquy.http.web;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import java.util.List;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The browser app at {@code /} and the widget at {@code /widget.js}: static files built from
 * {@code web/} and committed into this module's resources, so a node serves them with no Node on the
 * machine. They need no credential (the app asks for one; the widget is loaded by other sites'
 * pages). Hashed files under {@code /assets} never change, so browsers keep them; the page and the
 * widget are checked on every load, so a new version is picked up at once.
 */
public final class WebAssets extends AllDirectives {

  static final String ROOT = "dev/colloquy/http/web/";

  /**
   * The app loads only its own scripts, styles and images and talks only to its own origin: model
   * output that got past the sanitizer could still not run a script or send data elsewhere.
   */
  static final String APP_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      + "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

  private static final List<HttpHeader> PAGE = List.of(
      RawHeader.create("Cache-Control", "no-cache"),
      RawHeader.create("Content-Security-Policy", APP_POLICY),
      RawHeader.create("X-Content-Type-Options", "nosniff"),
      RawHeader.create("Referrer-Policy", "no-referrer"));

  private static final List<HttpHeader> HASHED = List.of(
      RawHeader.create("Cache-Control", "public, max-age=31536000, immutable"),
      RawHeader.create("X-Content-Type-Options", "nosniff"));

  /** Any site may load the widget's script; what it may call is decided by the key and origin checks. */
  private static final List<HttpHeader> WIDGET = List.of(
      RawHeader.create("Cache-Control", "no-cache"),
      RawHeader.create("Cross-Origin-Resource-Policy", "cross-origin"),
      RawHeader.create("X-Content-Type-Options", "nosniff"));

  private final DevKeyOffer devKey;

  public WebAssets(DevKeyOffer devKey) {
    this.devKey = devKey;
  }

  public Route route() {
    return get(() -> concat(
        pathSingleSlash(() -> respondWithHeaders(PAGE, () -> getFromResource(ROOT + "index.html"))),
        path("index.html", () -> respondWithHeaders(PAGE, () -> getFromResource(ROOT + "index.html"))),
        path("favicon.svg", () -> respondWithHeaders(PAGE, () -> getFromResource(ROOT + "favicon.svg"))),
        path("widget.js", () -> respondWithHeaders(WIDGET, () -> getFromResource(ROOT + "widget.js"))),
        pathPrefix("assets", () -> respondWithHeaders(HASHED, () -> getFromResourceDirectory(ROOT + "assets"))),
        path(segment("web").slash("dev-key"), devKey::route)));
  }
}
